"""`python -m quizapp` is the same as the `quizapp` command."""

from quizapp.cli import main

raise SystemExit(main())
