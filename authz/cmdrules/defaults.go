package cmdrules

// blockDevices are the names of disks and partitions under /dev: writing one bypasses every
// file permission and the sandbox's path rules (root can open it).
const blockDevices = "{sd,hd,vd,xvd,nvme,mmcblk,md,dm-,loop,nbd,rbd,zd,sr}*"

// Defaults are the shipped rules, applied after the configured ones (so a configured rule
// wins) unless [terminal] default_rules = false. docs/security.md lists them with their reasons.
var Defaults = []string{
	// Rewriting published history cannot be undone from the working copy.
	"deny git push --force* # force push rewrites shared history",
	"deny git push {-f*,-[!-]*f*} # force push rewrites shared history",
	"deny git push +* # force push (+refspec) rewrites shared history",
	// A download piped into an interpreter runs code nobody has read.
	"deny {curl,wget,fetch,http,xh} | {sh,bash,dash,zsh,ksh,fish,sudo,python*,perl,ruby,node} # download piped into an interpreter",
	// Decisions belong to the user; a command cannot take them (the CLI also checks its ancestry).
	"deny toolhost {approve,deny,revoke} # approvals come from the user, not from a terminal",
	"deny {curl,wget,http,xh} *api/approvals* # approvals come from the user, not from a terminal",
	// Channels that run commands outside the terminal and its sandbox.
	"ask {crontab,at,batch,systemd-run} # schedules commands outside the terminal sandbox",
	"ask systemctl --user # starts services outside the terminal sandbox",
	"ask {tmux,screen} # a running tmux or screen server runs commands outside the terminal sandbox",
	"ask {dbus-send,gdbus,busctl} # D-Bus can start programs outside the terminal sandbox",
	// Privilege: the sandbox makes them fail anyway; without it, they would act as root.
	"deny {sudo,doas,su} # runs as another user",
	"ask pkexec # runs as another user",
	// Raw disks: a write there bypasses every file permission and path rule.
	"deny > /dev/" + blockDevices + " # writes a block device",
	"deny > /dev/{disk,mapper}/* # writes a block device",
	"deny dd of=/dev/" + blockDevices + " # writes a block device",
	"deny {tee,cp,mv,shred,wipefs,blkdiscard,sfdisk,fdisk,parted,mkfs*,mke2fs,mkswap} /dev/" + blockDevices + " # writes a block device",
	// Recursive deletion of absolute, home or parent paths.
	"ask rm {-[rR]*,-[!-]*[rR]*,--recursive} {/*,~*,..*} # recursive delete outside the working directory",
}

// Strict is [terminal] policy = "strict": an allow-list (commands no rule names are denied)
// of what an agent needs to read a project, build it and test it with its own toolchain, and
// to use git short of pushing. What runs as another user, changes modes or owners outside the
// working directory, or runs in the background is denied. It comes after the configured rules
// and before the defaults.
var Strict = []string{
	"deny {sudo,doas,su,pkexec,runuser,setpriv,chroot,nsenter,unshare} # runs as another user or in another namespace",
	"deny {chmod,chown,chgrp,chattr,setfacl} * {/*,~*,..*} # changes modes or owners outside the working directory",
	"deny * & # runs in the background, beyond the command's reach",
	"deny git push # pushes go through the user",
	"deny {ssh,scp,sftp,rsync,nc,ncat,socat,telnet,ftp} # reaches other machines",
	"deny {eval,exec} # runs text as a command",
	// Reading and inspecting.
	"allow {ls,cat,head,tail,less,more,wc,file,stat,du,df,pwd,echo,printf,which,type,command,date,uname,whoami,id,hostname,tree,diff,cmp,sort,uniq,cut,tr,paste,join,comm,nl,fold,fmt,column,rev,tac,basename,dirname,realpath,readlink,test,[,true,false,sleep,seq,yes,expr,md5sum,sha1sum,sha256sum,base64,od,hexdump,xxd,strings,jq,yq} # reads and inspects",
	"allow {grep,egrep,fgrep,rg,ag,find,fd,locate,awk,gawk,sed,xargs} # searches and filters",
	"allow {cd,export,unset,set,alias,source,.,exit,history,env,printenv,time,timeout,nice,nohup,tee} # shell housekeeping",
	"allow {mkdir,touch,cp,mv,rm,ln,chmod,tar,zip,unzip,gzip,gunzip,xz,bzip2,patch} # files in the working directory (the sandbox keeps them there)",
	// The project's own toolchains.
	"allow {go,gofmt,gopls,staticcheck,golangci-lint,dlv} # Go builds and tests",
	"allow {npm,npx,node,yarn,pnpm,bun,deno,tsc,eslint,prettier,vitest,jest,mocha} # JavaScript builds and tests",
	"allow {python,python3,pip,pip3,pytest,ruff,black,mypy,pyright,uv,poetry,tox} # Python builds and tests",
	"allow {cargo,rustc,rustfmt,rustup} # Rust builds and tests",
	"allow {make,cmake,ninja,meson,gcc,g++,cc,c++,clang,clang++,ld,ar,javac,java,mvn,gradle,dotnet,ruby,bundle,rake,rspec,php,composer} # builds and tests",
	"allow git # git short of pushing",
}
