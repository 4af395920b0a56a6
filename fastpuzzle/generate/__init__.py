"""Random boards: uniform over those that reach a goal, permutations and scrambles.

* :mod:`.api` — :func:`random_solvable`, :func:`random_permutations`,
  :func:`scramble`, :func:`generate_chunks`: validation, seeding, blocks;
* :mod:`.random_kernels` — xoshiro256** streams, Fisher-Yates shuffles and
  random walks of the blank, serial and threaded.
"""

from .api import (
    block_boards, check_count, fill_random, generate_chunks, prepare_shape_goal, random_permutations,
    random_solvable, scramble, seed_key,
)  # fmt: skip

__all__ = ["random_solvable", "random_permutations", "scramble", "generate_chunks", "seed_key", "block_boards"]
