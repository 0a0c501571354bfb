//go:build !unix

package edit

// openNonBlock is 0 where FIFOs cannot be opened by path anyway.
const openNonBlock = 0
