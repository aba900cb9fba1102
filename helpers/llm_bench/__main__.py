"""`python -m helpers.llm_bench ...`: see helpers.llm_bench.cli."""

import sys

from helpers.llm_bench.cli import main

sys.exit(main())
