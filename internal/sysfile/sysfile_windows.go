//go:build windows

package sysfile

import (
	"os"

	"golang.org/x/sys/windows"
)

// OpenReadFlags: Windows has no FIFOs or controlling terminals to guard against through a file
// path, and os.Root never follows a link out of its tree.
const OpenReadFlags = 0

// NoFollow: not expressible as an open flag on Windows; callers check with Lstat.
const NoFollow = 0

// Ino is the file index, which needs a handle: 0 (unknown) here; callers then rely on size and
// modification time.
func Ino(os.FileInfo) uint64 { return 0 }

// OwnedByOther: files in the user's profile are protected by ACLs, not by an owner check.
func OwnedByOther(os.FileInfo) bool { return false }

// DirStamp is a directory's file index and last write time.
func DirStamp(dir string) (ino uint64, mtime int64, ok bool) {
	name, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, 0, false
	}
	h, err := windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0, false
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, 0, false
	}
	return uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), info.LastWriteTime.Nanoseconds(), true
}

// FreeSpace is the space the user may still write on the disk holding path.
func FreeSpace(path string) (uint64, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(name, &free, &total, &totalFree); err != nil {
		return 0, err
	}
	return free, nil
}
