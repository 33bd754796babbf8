"""The Dutch national flag: arrange red, white and blue items, counting swaps.

Two engines (SWI-Prolog's prolog/flag.pl and pure Python) compute the
arrangement, the minimum number of swaps and the swaps Dijkstra's
three-way partition makes; a validator referees them.
"""
