# Reading k6's log lines (logfmt: level=… msg="…" with \" \\ \n escaped) in bash: sourced by
# scripts/run and scripts/junit-exit, which work where Node is missing (the k6 image).
# wp_log_msg <line>: the line's msg value, unescaped (a newline as a space); false when none.
wp_log_msg() {
  [[ "$1" =~ msg=\"(([^\"\\]|\\.)*)\" ]] || return 1
  local m=${BASH_REMATCH[1]}
  m=${m//\\n/ }; m=${m//\\\"/\"}; m=${m//\\\\/\\}
  printf '%s' "$m"
}
