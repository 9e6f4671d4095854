# chaindata bench: rounds taking turns, each round's figures and the load
# average beside them, and medians only of rounds the machine was quiet
# enough for (sourced by bench/gzip and bench/tx-v3; bash).
#
# A run records, after each measured run, the 1-minute load average
# (/proc/loadavg) with rounds_note NAME ROUND; a round whose load is
# above the machine's cores (nproc) is busy: the other processes took CPU
# the figure's worker and load generator needed, and its figure means
# nothing.  rounds_median NAME is the median of the quiet rounds of US
# (the caller's array, US[NAME,ROUND]), or "busy" when none was quiet;
# with BENCH_BUSY_OK=1 the median of every round instead, marked
# "(busy)" (an A/B of rounds taking turns still tells a ratio).
# rounds_table NAMES... prints every round's figures and load.
#
# Knob: BENCH_BUSY_OK=0

declare -A ROUND_LOAD
ROUNDS_CORES=$(nproc)
ROUNDS_BUSY_OK=${BENCH_BUSY_OK:-0}

rounds_load() { cut -d' ' -f1 /proc/loadavg; }

rounds_busy() {    # rounds_busy LOAD: true when above the cores
    awk -v l="$1" -v c="$ROUNDS_CORES" 'BEGIN { exit !(l > c) }'
}

rounds_note() {    # rounds_note NAME ROUND: the load after NAME's run
    ROUND_LOAD[$1,$2]=$(rounds_load)
}

rounds_median_of() {
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

rounds_median() {    # rounds_median NAME: the median of its quiet rounds
    local n=$1 r v=() all=()
    for ((r = 1; r <= ROUNDS; r++)); do
        all+=("${US[$n,$r]}")
        rounds_busy "${ROUND_LOAD[$n,$r]}" || v+=("${US[$n,$r]}")
    done
    if (( ${#v[@]} > 0 )); then
        rounds_median_of "${v[@]}"
    elif [[ $ROUNDS_BUSY_OK == 1 ]]; then
        rounds_median_of "${all[@]}"
    else
        echo busy
    fi
}

rounds_quiet() {    # rounds_quiet NAME: how many of its rounds were quiet
    local n=$1 r q=0
    for ((r = 1; r <= ROUNDS; r++)); do
        rounds_busy "${ROUND_LOAD[$n,$r]}" || q=$((q + 1))
    done
    echo "$q"
}

# a figure of the table: the median, "(busy)" when no round was quiet
rounds_figure() {    # rounds_figure NAME
    local m
    m=$(rounds_median "$1")
    if [[ $m == busy ]]; then
        echo "busy: no round at load ≤ $ROUNDS_CORES"
    elif (( $(rounds_quiet "$1") == 0 )); then
        echo "$m µs (busy)"
    else
        echo "$m µs"
    fi
}

# a ratio of two medians, "-" when either is not a figure
rounds_ratio() {    # rounds_ratio NAME BASE
    local a b
    a=$(rounds_median "$1"); b=$(rounds_median "$2")
    if [[ $a == busy || $b == busy ]]; then
        echo -
    else
        awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
    fi
}

rounds_table() {    # rounds_table NAMES...: µs per request, each round
    local n r line head sep
    head="| round |"; sep="|---:|"
    for n in "$@"; do head="$head $n µs |"; sep="$sep---:|"; done
    printf '%s load (1 min; %s cores) |\n%s---:|\n' "$head" "$ROUNDS_CORES" "$sep"
    for ((r = 1; r <= ROUNDS; r++)); do
        line="| $r |"
        local worst=0
        for n in "$@"; do
            line="$line ${US[$n,$r]} |"
            worst=$(awk -v a="$worst" -v b="${ROUND_LOAD[$n,$r]}" \
                    'BEGIN { print (b > a) ? b : a }')
        done
        if rounds_busy "$worst"; then
            line="$line $worst (busy) |"
        else
            line="$line $worst |"
        fi
        echo "$line"
    done
}

# a figure measured otherwise (not a round of US) against NAME's median
rounds_ratio_to() {    # rounds_ratio_to FIGURE NAME
    local b
    b=$(rounds_median "$2")
    if [[ $b == busy ]]; then
        echo -
    else
        awk -v a="$1" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
    fi
}
