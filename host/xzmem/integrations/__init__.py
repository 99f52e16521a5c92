"""Memory for other programs' conversations: the xiaozhi-esp32-server memory provider."""
