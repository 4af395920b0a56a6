"""Benchmarks of fastpuzzle; each ``bench_<family>.py`` runs alone or via ``python -m bench``."""
