"""The small core every stage shares: registry, errors, settings, paths, output, text forms, caches."""
