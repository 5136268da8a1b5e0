// The shell side of completion: each script hands the words after `pets` (the last one is
// the word being completed, maybe empty) to `pets __complete -- <words>` and shows the lines
// it prints, `value` or `value<TAB>description`. When it prints nothing, the shell completes
// file names (bash: complete -o default, zsh: _files, fish: __fish_complete_path).

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const BASH = `# bash completion for pets. Load it with: source <(pets completion bash)
_pets_completion() {
  local line=\${COMP_LINE:0:COMP_POINT} cur=\${COMP_WORDS[COMP_CWORD]} prefix candidate
  local -a words
  read -ra words <<<"$line"
  [[ $line =~ [[:space:]]$ ]] && words+=('')
  # bash splits --flag=value at "=", so its current word is only what follows: drop the rest.
  prefix=\${words[\${#words[@]}-1]}
  prefix=\${prefix%"$cur"}
  COMPREPLY=()
  while IFS= read -r candidate; do
    candidate=\${candidate%%$'\\t'*}
    [[ -n $candidate ]] && COMPREPLY+=("\${candidate#"$prefix"}")
  done < <(command pets __complete -- "\${words[@]:1}" 2>/dev/null)
}
complete -o default -F _pets_completion pets
`;

const ZSH = `#compdef pets
# zsh completion for pets. Install: pets completion zsh > "\${fpath[1]}/_pets"
# and start a new shell, or load it now: source <(pets completion zsh)
_pets() {
  local -a lines specs
  local line value
  lines=("\${(@f)$(command pets __complete -- "\${(@Q)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    value=\${\${line%%$'\\t'*}//:/\\\\:}
    if [[ $line == *$'\\t'* ]]; then specs+=("$value:\${line#*$'\\t'}"); else specs+=("$value"); fi
  done
  if (( \${#specs} )); then _describe -t pets-values 'pets' specs; else _files; fi
}
if [[ \${funcstack[1]} == _pets ]]; then _pets "$@"; else compdef _pets pets; fi
`;

const FISH = `# fish completion for pets. Install: pets completion fish > ~/.config/fish/completions/pets.fish
# or load it now: pets completion fish | source
function __pets_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l candidates (command pets __complete -- $words[2..-1] "$current" 2>/dev/null)
    if set -q candidates[1]
        printf '%s\\n' $candidates
    else
        __fish_complete_path "$current"
    end
end
complete -c pets -f -a '(__pets_complete)'
`;

const SCRIPTS: Readonly<Record<Shell, string>> = { bash: BASH, zsh: ZSH, fish: FISH };

export function completionScript(shell: Shell): string {
  return SCRIPTS[shell];
}
