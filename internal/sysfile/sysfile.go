// Package sysfile answers the questions about files that the operating systems answer
// differently: a file's identity (inode or file index), its owner, the free space of a disk,
// and the flags that open a file for reading without blocking on a FIFO or following a final
// symbolic link. One file per platform; callers stay free of syscall.Stat_t and friends.
package sysfile
