"""The link to a device: MCP client (WebSocket or serial), op batches, the durable outbox, export and import."""
