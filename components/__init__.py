"""The page's pieces, one per file: each draws what it is given and returns the plain values it reads."""
