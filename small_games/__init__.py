"""The seed articles' small games -- tic-tac-toe and Connect Four -- on Monte's board, rules kernel and plain UCT: play
them in a terminal (``monte games``) and re-run the articles' experiments (``monte seeds``)."""
