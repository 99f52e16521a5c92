"""firmware/manifest.py freezes lib/memory on top of the port's own manifest."""

from esp_images import ROOT


def test_manifest_freezes_the_memory_package():
    calls = []
    manifest = ROOT / "firmware" / "manifest.py"
    scope = {
        "include": lambda path, **kw: calls.append(("include", path)),
        "package": lambda name, files=None, base_path=".", **kw: calls.append(("package", name, base_path)),
        "module": lambda name, base_path=".", **kw: calls.append(("module", name, base_path)),
    }
    exec(compile(manifest.read_text(), str(manifest), "exec"), scope)
    assert ("include", "$(PORT_DIR)/boards/manifest.py") in calls
    packages = [c for c in calls if c[0] == "package"]
    assert [p[1] for p in packages] == ["memory"]
    # MicroPython resolves base_path against the manifest's own folder.
    assert (manifest.parent / packages[0][2] / "memory" / "__init__.py").resolve() == ROOT / "lib" / "memory" / "__init__.py"
