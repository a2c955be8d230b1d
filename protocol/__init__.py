"""The pbrain (Gomocup) protocol, both sides: the brain's stdin/stdout loop and the manager-side client, and how
points and rules are written (``notation``)."""
