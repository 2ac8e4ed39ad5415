"""How the expert's rollouts judge a phase 2 they do not play: the worths of each seat's
features where phase 2 starts.

With 2 or 3 players, a rollout from phase 1 stops where phase 2 starts and is scored
by each seat's chance of winning from there (`compiled.chances`): a softmax of worths
of the seats' hands (`PHASE2_WORTHS`), fitted by bench/phase2_worths.py to greedy's
games (it names the winner of 75% of decided 2-player greedy games from there, 67% of
3-player ones). A chance is a smoother score than one playout of phase 2, and costs
less: the search gets more deals in its time.
"""

# A seat's features at the start of phase 2: each card of its hand (its index), UNDEAD
# for each card it scored in phase 1 (Undead only), LEADS if it leads, and per faction
# (+ its rank) MOST if it holds more of its cards than any other seat, TOP if it holds
# its highest card.
UNDEAD, LEADS, MOST, TOP, FEATURES = 100, 101, 102, 112, 122
# Per number of players, each feature's worth (a log-odds), as fitted on 200,000 greedy
# games by `bench/phase2_worths.py --players 2`, then `--players 3`.
# fmt: off
PHASE2_WORTHS: dict[int, tuple[float, ...]] = {
    2: (
        +0.04, +0.06, +0.16, +0.21, +0.34, +0.42, +0.50, +0.49, +0.41, +0.30,  # DO 0-9
        +0.03, -0.01, -0.02, +0.02, +0.04, +0.08, +0.14, +0.19, +0.23, +0.13,  # DR 0-9
        +0.24, +0.16, +0.11, +0.05, +0.02, -0.05, -0.09, -0.16, -0.15, -0.06,  # DW 0-9
        +0.00, -0.27, +0.00, -0.22, +0.00, -0.04, +0.00, +0.21, +0.00, +0.06,  # GI 0-9
        +0.00, -0.20, +0.00, -0.19, +0.00, -0.03, +0.00, +0.22, +0.00, +0.12,  # GN 0-9
        -0.44, -0.40, -0.37, -0.33, -0.27, -0.19, -0.09, +0.03, +0.07, -0.01,  # GO 0-9
        +0.00, +0.00, -0.15, -0.14, -0.14, -0.07, +0.03, +0.15, +0.17, +0.07,  # KN 0-9
        -0.20, -0.20, -0.19, -0.17, -0.13, -0.03, +0.08, +0.23, +0.25, +0.06,  # SE 0-9
        -0.19, -0.16, -0.15, -0.14, -0.11, -0.03, +0.03, +0.10, +0.11, -0.05,  # TR 0-9
        -0.16, -0.14, -0.14, -0.11, -0.10, -0.01, +0.06, +0.16, +0.18, +0.31,  # UN 0-9
        +0.17,  # UNDEAD
        -0.03,  # LEADS
        +0.18, -0.18, +0.26, +0.15, +0.03, +0.05, +0.23, -0.05, +0.05, -0.03,  # MOST
        +0.36, +0.58, -0.29, +0.56, +0.27, +0.27, +0.59, +0.49, +0.43, +0.19,  # TOP
    ),
    3: (
        +0.14, +0.06, +0.13, +0.16, +0.25, +0.36, +0.55, +0.65, +0.71, +0.63,  # DO 0-9
        +0.06, +0.03, +0.03, +0.10, +0.14, +0.17, +0.23, +0.22, +0.30, +0.36,  # DR 0-9
        +0.21, +0.02, -0.07, -0.15, -0.22, -0.26, -0.30, -0.31, -0.34, -0.30,  # DW 0-9
        +0.00, -0.24, +0.00, -0.24, +0.00, -0.16, +0.00, +0.10, +0.00, +0.18,  # GI 0-9
        +0.00, -0.16, +0.00, -0.21, +0.00, -0.13, +0.00, +0.13, +0.00, +0.17,  # GN 0-9
        -0.36, -0.39, -0.39, -0.43, -0.43, -0.45, -0.44, -0.39, -0.31, -0.25,  # GO 0-9
        +0.00, +0.00, -0.14, -0.16, -0.13, -0.08, -0.02, +0.10, +0.19, +0.14,  # KN 0-9
        -0.13, -0.18, -0.20, -0.22, -0.20, -0.20, -0.11, +0.02, +0.08, +0.05,  # SE 0-9
        -0.16, -0.18, -0.18, -0.17, -0.17, -0.13, -0.07, -0.01, +0.09, -0.02,  # TR 0-9
        -0.15, -0.17, -0.20, -0.20, -0.18, -0.15, -0.10, +0.01, +0.10, +0.21,  # UN 0-9
        +0.20,  # UNDEAD
        -0.02,  # LEADS
        +0.11, -0.02, +0.27, +0.11, +0.11, +0.14, +0.24, +0.14, +0.12, +0.08,  # MOST
        +0.23, +0.51, -0.04, +0.66, +0.48, +0.41, +0.76, +0.70, +0.53, +0.48,  # TOP
    ),
}
