"""Looking at positions and games: ``monte analyze`` (what Monte thinks of a position, its search tree in DOT) and
``monte render`` (SVG pictures), with the game files they and ``monte play`` read."""
