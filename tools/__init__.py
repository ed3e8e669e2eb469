"""Scripts that maintain the repository's own files (generated reference pages, screenshots); not part of the
pipeline or the app, and imported by nothing but their tests."""
