"""Tests that kill surviving mutants of quizapp/store/search.py (benchmarks/mutation.py search), each
naming the mutant it kills. The differential test in test_search_oracle.py kills most; these are the rest."""
