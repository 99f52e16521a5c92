# firmware/sim/vfs.py is for CPython only: under MicroPython the builtin vfs module must win.

import sys
import unittest

import vfs


class VfsModule(unittest.TestCase):
    def test_builtin_vfs_wins_under_micropython(self):
        if sys.implementation.name == "micropython":
            self.assertFalse(hasattr(vfs, "_mounted"))  # the simulator's module keeps this table
            self.assertTrue(hasattr(vfs, "mount"))
        else:
            self.assertTrue(hasattr(vfs, "_mounted"))
            self.assertTrue(hasattr(vfs.VfsLfs2, "mkfs"))
