# Device entry: run the memory service (boot.py has mounted /data).

import asyncio

from memory import app

asyncio.run(app.main())
