# Board start-up: mount the `memory` partition's LittleFS at /data (main.py starts the rest).

import esp32
from memory.mount import mount_data

_found = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")
print("memory partition:", mount_data(_found[0] if _found else None))
