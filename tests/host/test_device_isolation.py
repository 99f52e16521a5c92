"""One device's memory never reaches another's, nor the host's own files.

Provider paths (the xiaozhi-esp32-server memory provider): every role_id (the talking device's id,
from the connection's Device-Id header) gets a data folder of its own under `data/xiaozhi`, which no
other id shares and which no id can leave.
"""

import pytest
from xzmem.config import Config
from xzmem.integrations.settings import load_settings, role_dir_name

BLOCK = {"type": "xzmem", "device": "ws://127.0.0.1:1/mcp", "token": "t"}


def folder_of(tmp_path, role_id):
    settings = load_settings(dict(BLOCK, data=str(tmp_path / "host")), Config())
    return settings.role_config(role_id).data_path


@pytest.mark.parametrize("first, second", [
    ("aa:bb:cc:dd:ee:ff", "aa_bb_cc_dd_ee_ff"),
    ("aa:bb:cc:dd:ee:ff", "aa.bb.cc.dd.ee.ff"),
    ("kid-1", "KID-1"),  # one folder on a case-blind file system
    ("a" * 64 + "x", "a" * 64 + "y"),
    ("小明", "小红"),
    ("x/y", "x_y"),
])
def test_two_role_ids_never_share_a_folder(tmp_path, first, second):
    one, two = folder_of(tmp_path, first), folder_of(tmp_path, second)
    assert one.name.lower() != two.name.lower()


@pytest.mark.parametrize("role_id", ["..", ".", "../..", "/etc", "a/../../b", "..\\..", "~"])
def test_no_role_id_leaves_the_providers_folder(tmp_path, role_id):
    folder = folder_of(tmp_path, role_id)
    assert folder.parent == tmp_path / "host" / "xiaozhi"
    assert folder.name not in (".", "..") and "/" not in folder.name and "\\" not in folder.name


@pytest.mark.parametrize("role_id", [None, "", "   ", "a\nb", "a\x00b", "x" * 129, True, 1.5, ["a"]])
def test_unusable_role_ids_are_refused_with_the_reason(tmp_path, role_id):
    with pytest.raises(ValueError, match="role_id"):
        folder_of(tmp_path, role_id)


def test_a_mac_and_a_plain_id_keep_their_readable_folders():
    assert role_dir_name("24:0a:c4:00:00:01") == "24_0a_c4_00_00_01"
    assert role_dir_name("kid-1") == "kid-1"
    assert role_dir_name(7) == "7"
