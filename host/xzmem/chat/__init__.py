"""`xzmem chat`: a terminal conversation with the device's memory, running the pipelines after each turn."""
