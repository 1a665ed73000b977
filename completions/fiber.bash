# bash completion for fiber(1)                             -*- shell-script -*-
#
# Installed as bash-completion/completions/fiber; also works sourced on its
# own, without bash-completion, with less help for --opt=value.

# The ids and names of the runs kept: the directory names under the runs
# directory, and the "name" field of each run.json (one field per line).
_fiber_runs() {
    local state=${XDG_STATE_HOME-} root d
    [[ $state == /* ]] || state=${HOME:-/tmp}/.local/state
    root=$state/fiber/runs
    local -a runs=() records=()
    for d in "$root"/*/; do
        [[ -d $d ]] || continue
        d=${d%/}
        runs+=("${d##*/}")
        [[ -f $d/run.json ]] && records+=("$d/run.json")
    done
    if ((${#records[@]})); then
        local name
        while IFS= read -r name; do
            runs+=("$name")
        done < <(sed -n 's/^ *"name": *"\(.*\)",\{0,1\}$/\1/p' "${records[@]}" 2>/dev/null)
    fi
    local r
    local -A seen=()
    for r in "${runs[@]}"; do
        [[ $r == "$cur"* && -z ${seen[$r]-} ]] && COMPREPLY+=("$r") && seen[$r]=1
    done
}

# The ids of a run's workers: its workers/ID.log files. The run is named by
# id (its directory) or by the "name" in its run.json.
_fiber_workers() {
    local state=${XDG_STATE_HOME-} root dir= d
    [[ $state == /* ]] || state=${HOME:-/tmp}/.local/state
    root=$state/fiber/runs
    if [[ -n $1 && -d $root/$1 ]]; then
        dir=$root/$1
    else
        for d in "$root"/*/; do
            [[ -n $1 ]] && grep -qs "^ *\"name\": *\"$1\",\{0,1\}$" "$d/run.json" && dir=${d%/} && break
        done
    fi
    [[ -n $dir ]] || return
    local f w
    for f in "$dir"/workers/*.log; do
        [[ -e $f ]] || continue
        w=${f##*/}
        w=${w%.log}
        [[ $w == "$cur"* ]] && COMPREPLY+=("$w")
    done
}

# Words the fiber being completed knows (fiber __complete: settings flags,
# their choices, profiles), so this script copies none of them.
_fiber_words() {
    "${words[0]}" __complete "$@" 2>/dev/null
}

_fiber() {
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s -n : || return
    else
        # COMP_WORDS splits "--log=info" and "K=V" at = and :; join them.
        local i w join=false
        words=() cword=0
        for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
            w=${COMP_WORDS[i]}
            if ((i > 1)) && { [[ $join == true ]] || [[ $w =~ ^[=:]+$ ]]; }; then
                words[${#words[@]} - 1]+=$w
            else
                words+=("$w")
            fi
            [[ $w =~ ^[=:]+$ ]] && join=true || join=false
            ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
        done
        cur=${words[cword]}
        prev=${words[cword - 1]}
        if [[ $cur == --*=* ]]; then
            prev=${cur%%=*} cur=${cur#*=} split=true
        fi
    fi
    COMPREPLY=()

    # Settings flags (runtime/src/config/setting_table.cpp) and --config, as
    # fiber run and fiber config show take them; all take a value.
    local settings
    settings=$(_fiber_words flags)
    local run_valued="$settings --env --name --grace -o --output"
    local run_flags='-d --detach --build -q --quiet --dry-run -h --help'

    # The value of an option, when the word before it is one.
    local choices
    case $prev in
        --profile)
            mapfile -t COMPREPLY < <(compgen -W "$(_fiber_words profiles)" -- "$cur")
            return
            ;;
        -o | --output)
            [[ ${words[1]} == run ]] && mapfile -t COMPREPLY < <(compgen -W 'yaml' -- "$cur")
            return
            ;;
        --worker)
            # The run: the word that is no option nor --worker's value,
            # before or after this one.
            local k
            for ((k = 2; k < ${#words[@]}; k++)); do
                ((k != cword)) && [[ ${words[k]} != -* && ${words[k - 1]} != --worker ]] && break
            done
            ((k < ${#words[@]})) && _fiber_workers "${words[k]}"
            return
            ;;
        --config | --image-files | --kubeconfig | --templates)
            compopt -o default 2>/dev/null
            return
            ;;
        --listen-host | --advertise-host)
            mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
            return
            ;;
        --env | --name | --grace | --push)
            return
            ;;
        --*)
            if [[ $'\n'$settings$'\n' == *$'\n'"$prev"$'\n'* ]]; then
                choices=$(_fiber_words choices -- "$prev")
                [[ -n $choices ]] && mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
                return
            fi
            ;;
    esac
    [[ $split == true ]] && return

    if ((cword == 1)); then
        mapfile -t COMPREPLY < <(compgen -W 'run ps top logs stop rm prune config image init help version -h --help --version' -- "$cur")
        return
    fi

    local i
    case ${words[1]} in
        run)
            # Options come before PROGRAM; from PROGRAM on, the words are
            # the program's.
            for ((i = 2; i < cword; i++)); do
                case ${words[i]} in
                    --) ((i++)); break ;;
                    --*=*) ;;
                    -*) [[ " ${run_valued//[[:space:]]/ } " == *" ${words[i]} "* ]] && ((i++)) ;;
                    *) break ;;
                esac
            done
            if ((i < cword)); then
                # An argument of PROGRAM: complete as for PROGRAM itself.
                local j
                for ((j = i; j < COMP_CWORD; j++)); do
                    [[ ${COMP_WORDS[j]} == "${words[i]}" ]] && break
                done
                if declare -F _command_offset >/dev/null && ((j < COMP_CWORD)); then
                    _command_offset "$j"
                else
                    compopt -o default 2>/dev/null
                fi
            elif [[ $cur == -* && ${words[i - 1]} != -- ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$run_valued $run_flags" -- "$cur")
            elif [[ $cur == */* ]]; then
                compopt -o default 2>/dev/null
            else
                # PROGRAM: a command on PATH, or a file.
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <({ compgen -c -- "$cur"; compgen -f -- "$cur"; } | sort -u)
            fi
            ;;
        ps)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-a --all --json -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        top)
            if [[ $prev == --sort ]]; then
                mapfile -t COMPREPLY < <(compgen -W 'state id task-time done' -- "$cur")
            elif [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '--once --json --sort -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        rm)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        prune)
            mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
            ;;
        logs)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-f --follow --worker --all -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        stop)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '--force -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        config)
            if ((cword == 2)); then
                mapfile -t COMPREPLY < <(compgen -W 'show -h --help' -- "$cur")
            elif [[ ${words[2]} == show && $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$settings --json -h --help" -- "$cur")
            fi
            ;;
        image)
            if ((cword == 2)); then
                mapfile -t COMPREPLY < <(compgen -W 'build prune -h --help' -- "$cur")
            elif [[ ${words[2]} == prune && $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$settings -h --help" -- "$cur")
            elif [[ ${words[2]} == build && $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "--push -q --quiet $settings -h --help" -- "$cur")
            elif [[ ${words[2]} == build || ${words[2]} == prune ]]; then
                # PROGRAM: a file (an executable to package), not a command.
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            ;;
        init)
            mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
            ;;
    esac
} &&
    complete -F _fiber fiber

# ex: filetype=sh
