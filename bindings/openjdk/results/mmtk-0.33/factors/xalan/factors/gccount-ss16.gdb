set pagination off
set confirm off
handle SIGSEGV nostop noprint pass
handle SIGILL nostop noprint pass
handle SIGUSR2 nostop noprint pass
handle SIGQUIT nostop noprint pass
catch load libmmtk_openjdk
run
break *((char*)&bind_mutator - 0x2ab930 + 0x2aa910)
commands
silent
continue
end
delete 1
continue
info breakpoints
