"""``monte play``: Gomoku in the terminal against Monte or any pbrain engine (``terminal``), with the game model
(``game``), the seats at the board (``seats``), the board's drawing (``board_view``) and the engines' live search
info (``search_info``)."""
