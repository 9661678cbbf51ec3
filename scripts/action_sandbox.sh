#!/usr/bin/env bash
# The GitHub Action's sandbox set-up (action.yml, step "Set up the shell sandbox"): makes
# bubblewrap work on the runner before the agent runs, or fails the step saying why, so a
# review job never stays green having refused every shell call.
#   AGENT_ACTION_SANDBOX=auto|off scripts/action_sandbox.sh
#
# auto (the default):
#   1. bwrap missing: install the bubblewrap package (apt-get, through sudo when not root).
#   2. Trial-run bwrap the way the agent's sandbox starts it (new namespaces, its own /proc).
#   3. Refused, and the kernel restricts unprivileged user namespaces through AppArmor
#      (kernel.apparmor_restrict_unprivileged_userns = 1, the default of GitHub's Ubuntu 24.04
#      images; actions/runner-images#10443, where the images keep Ubuntu's default, see
#      actions/runner-images#11489): turn the restriction off for this runner with sysctl,
#      then try again.
#   4. Still refused: fail the step with the reason and the way out (`sandbox: off`).
# off: nothing is installed or changed; the agent runs its shell commands unsandboxed, and
#   every report says so.
# Tested against each condition with stand-ins for apt-get, bwrap and sysctl in a container
# of the project's base image (tests/e2e/action_sandbox_test.ts).
set -uo pipefail

mode="${AGENT_ACTION_SANDBOX:-auto}"
restriction=kernel.apparmor_restrict_unprivileged_userns

fail() {
  echo "::error title=agent sandbox::$1; or set the action's input \`sandbox: off\` to run the agent's shell commands unsandboxed on the runner"
  exit 1
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else return 1; fi
}

# The agent's own probe (core/sandbox/sandbox.ts) runs bwrap with its real flags; these are the
# ones that need what a runner may refuse: the namespaces and a fresh /proc.
trial() {
  bwrap --unshare-all --die-with-parent --ro-bind / / --proc /proc --dev /dev true 2>&1
}

case "$mode" in
  off)
    echo "sandbox: off; the agent's shell commands run unsandboxed on the runner"
    exit 0
    ;;
  auto) ;;
  *) fail "input sandbox must be auto or off, not \"$mode\"" ;;
esac

if ! command -v bwrap >/dev/null 2>&1; then
  echo "sandbox: installing bubblewrap"
  if ! command -v apt-get >/dev/null 2>&1; then
    fail "bubblewrap is not installed and this runner has no apt-get to install it; install bubblewrap in an earlier step"
  fi
  out=$( (as_root apt-get update -qq && as_root apt-get install -y -qq bubblewrap) 2>&1)
  if ! command -v bwrap >/dev/null 2>&1; then
    fail "bubblewrap is not installed and apt-get install bubblewrap failed ($(printf '%s' "$out" | tail -n 1))"
  fi
fi

if why=$(trial); then
  echo "sandbox: bubblewrap works ($(command -v bwrap))"
  exit 0
fi
why=$(printf '%s' "$why" | head -n 1)

restricted=$(sysctl -n "$restriction" 2>/dev/null || true)
if [ "$restricted" = 1 ]; then
  echo "sandbox: bwrap was refused ($why): AppArmor restricts unprivileged user namespaces ($restriction = 1, as on GitHub's Ubuntu 24.04 runners); turning the restriction off for this runner"
  if ! set_out=$(as_root sysctl -w "$restriction=0" 2>&1); then
    fail "bubblewrap cannot start ($why) and sysctl -w $restriction=0 failed ($(printf '%s' "$set_out" | tail -n 1))"
  fi
  if why=$(trial); then
    echo "sandbox: bubblewrap works with $restriction=0"
    exit 0
  fi
  why=$(printf '%s' "$why" | head -n 1)
fi

fail "bubblewrap cannot start on this runner ($why): it needs unprivileged user namespaces"
