"""``monte gui``: Gomoku in the browser -- play (two people, a person against an engine, two engines), watch, and
replay a tournament's games.

The command (``command``) reads the engines it may run (``roster``) and starts the server (``server``, on aiohttp,
imported only then). Each browser tab's live game is a ``table`` driven by the page's messages (``messages``, every
one checked) with its engine processes in ``players``; ``views`` turns games into the JSON the page draws, and
``replay`` lists the games of tournament runs. The page itself is plain HTML, CSS and JavaScript in ``static/``.
"""
