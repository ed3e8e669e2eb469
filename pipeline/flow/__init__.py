"""The flow: steps with what each reads and writes, the named pipelines, and run configs."""
