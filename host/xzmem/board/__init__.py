"""A real board: partition layouts, firmware files, LittleFS images, flash/deploy/backup plans, the mip package."""
