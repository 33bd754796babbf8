#!/bin/sh
# Regenerates the generated part of the bundled consecutive suite,
# puzzles/sudoku/consecutive/test011 upwards, byte for byte.
# (test001..test010 are hand-made and are not touched.)
#
# Every puzzle comes from `plpuzzle sudoku generate` with a fixed seed; the
# expected solutions are written only when the Prolog and the Python engine
# agree on them and the validator accepts every one. The output depends only
# on the seeds, the options and the generator's code (not on engine speed).
#
# Usage: puzzles/sudoku/generate_consecutive.sh [OUTDIR]
#   OUTDIR defaults to puzzles/sudoku/consecutive; PLPUZZLE names the command.
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-puzzles/sudoku/consecutive}
PLPUZZLE=${PLPUZZLE:-plpuzzle}

gen() {
    "$PLPUZZLE" sudoku generate --rules consecutive --out "$OUT" --force --time-limit 120 "$@"
}

# K=2: contradictions, unique puzzles of each kind, a few and many solutions
gen --k 2 --start 11 --count 2 --solutions 0..0 --seed 2011
gen --k 2 --start 13 --solutions 1..1 --kind mixed --seed 2013
gen --k 2 --start 14 --solutions 1..1 --kind lean --seed 2014
gen --k 2 --start 15 --solutions 1..1 --kind classic --seed 2015
gen --k 2 --start 16 --count 2 --solutions 2..6 --seed 2016
gen --k 2 --start 18 --solutions 20..60 --kind lean --seed 2018
gen --k 2 --start 19 --solutions 100..200 --seed 2019

# K=3
gen --k 3 --start 20 --count 2 --solutions 0..0 --seed 3020
gen --k 3 --start 22 --count 2 --solutions 1..1 --keep 0.15 --seed 3022
gen --k 3 --start 24 --solutions 1..1 --kind lean --seed 3024
gen --k 3 --start 25 --solutions 1..1 --kind classic --seed 3025
gen --k 3 --start 26 --count 3 --solutions 2..9 --keep 0.2 --seed 3026
gen --k 3 --start 29 --solutions 20..60 --keep 0.2 --seed 3029
gen --k 3 --start 30 --count 2 --solutions 100..250 --keep 0.2 --seed 3030

# K=4: mostly many solutions; infos are kept above a floor (the default
# --keep), so that the puzzles stay quick to solve
gen --k 4 --start 32 --count 4 --solutions 100..250 --seed 4032
gen --k 4 --start 36 --solutions 250..400 --seed 4036
gen --k 4 --start 37 --solutions 1..1 --kind mixed --seed 4037
gen --k 4 --start 38 --solutions 1..1 --kind lean --seed 4038
gen --k 4 --start 39 --solutions 1..1 --kind classic --seed 4039
gen --k 4 --start 40 --solutions 0..0 --kind lean --seed 4040
gen --k 4 --start 41 --solutions 2..9 --seed 4041

# K=5
gen --k 5 --start 42 --count 4 --solutions 100..250 --seed 5042
gen --k 5 --start 46 --solutions 250..400 --seed 5046
gen --k 5 --start 47 --solutions 1..1 --kind mixed --seed 5047
gen --k 5 --start 48 --solutions 1..1 --kind lean --seed 5048
gen --k 5 --start 49 --solutions 0..0 --kind mixed --seed 5049
gen --k 5 --start 50 --solutions 0..0 --kind classic --seed 5050
gen --k 5 --start 51 --solutions 2..9 --seed 5051
