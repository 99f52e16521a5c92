"""The host's SQLite database in the data directory (extraction log, keyed mirror, profile)."""

import sqlite3
from pathlib import Path

DB_NAME = "xzmem.db"


def open_db(data_dir: str | Path) -> sqlite3.Connection:
    """Open (creating) `xzmem.db` under `data_dir`; rows come back as sqlite3.Row."""
    path = Path(data_dir).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path / DB_NAME)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    # The log, mirror and working-memory snapshot may lose their last commit to a power cut (WAL keeps
    # them consistent); not syncing each commit keeps a chat turn's three commits off the disk's fsync.
    # The outbox, which must not lose a batch, syncs every commit in its own file.
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn
