"""``/remember`` and its capture: the command, its index, the silent-capture budget and metrics,
the shipped ``/remember`` command and skill."""
