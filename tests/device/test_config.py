# Device config: defaults, validation errors that name the key, reading the file.

import os
import unittest

from memory import config
from store_helpers import TMP as _TMP


class Validate(unittest.TestCase):
    def test_defaults(self):
        cfg = config.validate({})
        self.assertEqual(cfg["listen_port"], 8765)
        self.assertEqual(cfg["token"], "")

    def test_errors_name_the_key(self):
        for raw, word in (
            ({"listen_port": "80"}, "listen_port"),
            ({"listen_port": 70000}, "listen_port"),
            ({"utc_offset": 90000}, "utc_offset"),
            ({"wifi_ssid": 5}, "wifi_ssid"),
            ({"endpoint_url": "http://x"}, "endpoint_url"),
            ({"tokn": "abc"}, "tokn"),
            ({"token": "short"}, "token"),
        ):
            try:
                config.validate(raw)
            except ValueError as e:
                self.assertTrue(word in str(e), str(e))
            else:
                self.fail("accepted %r" % (raw,))

    def test_load_file(self):
        path = _TMP + "/xz_config_test.json"
        with open(path, "w") as f:
            f.write('{"token": "secret-token", "listen_port": 9000}')
        try:
            cfg = config.load(path)
            self.assertEqual((cfg["token"], cfg["listen_port"]), ("secret-token", 9000))
            with open(path, "w") as f:
                f.write("{not json")
            try:
                config.load(path)
            except ValueError as e:
                self.assertTrue("JSON" in str(e))
            else:
                self.fail("bad JSON accepted")
        finally:
            os.remove(path)
        self.assertEqual(config.load(_TMP + "/missing.json")["listen_port"], 8765)


class PublicConfig(unittest.TestCase):
    def test_a_backup_keeps_the_settings_and_none_of_the_secrets(self):
        cfg = config.validate({"wifi_ssid": "家里", "wifi_password": "pw-123456", "token": "tok-123456",
                               "xiaozhi_token": "x-1", "endpoint_url": "wss://api.example/mcp/?token=abc",
                               "language": "en"})
        out = config.public(cfg)
        for secret in ("wifi_password", "token", "xiaozhi_token"):
            self.assertFalse(secret in out, secret)
        self.assertEqual(out["endpoint_url"], "wss://api.example/mcp/")
        self.assertEqual((out["wifi_ssid"], out["language"], out["utc_offset"]), ("家里", "en", 28800))
        self.assertFalse("abc" in str(out) or "123456" in str(out))


class BadConfigAtBoot(unittest.TestCase):
    async def test_device_starts_with_defaults_and_says_why(self):
        import asyncio

        import esp32
        from memory import app, clock

        path = _TMP + "/xz_bad_config.json"
        with open(path, "w") as f:
            f.write('{"listen_port": "eighty"}')
        esp32.configure_nvs(None)
        lines = []
        original = app.Device.serve

        async def serve(device, ready=print):
            lines.append(device.cfg["listen_port"])

        app.Device.serve = serve
        try:
            await app.main(path)
        finally:
            app.Device.serve = original
            app.current = None
            clock.set_utc_offset(0)
            os.remove(path)
        self.assertEqual(lines, [8765])
        await asyncio.sleep(0)
