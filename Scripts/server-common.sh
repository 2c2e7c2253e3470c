# Shared by the scripts that start servers in the background (test-server.sh,
# postgres-server.sh); sourced, not run.

# Closes every inherited descriptor above 2 in a subshell about to start a server: a caller
# that waits for the descriptors it handed over (Foundation's Process, a pipe) would otherwise
# wait for the server too.
close_inherited() {
    local fd
    for fd in /proc/$BASHPID/fd/*; do
        fd="${fd##*/}"
        [ "$fd" -gt 2 ] 2>/dev/null && [ "$fd" != 255 ] && eval "exec $fd>&-" 2>/dev/null
    done
    return 0
}
