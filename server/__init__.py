"""The appliance's local web page and HTTP/WebSocket API (FastAPI)."""
