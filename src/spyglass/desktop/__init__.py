"""The desktop surface: the web page in a native window (docs/web.md "Desktop")."""
