// Package cachekey names the entries of dpgpu's caches of compiled programs
// (CUBINs, host libraries): the hex SHA-256 of a length-prefixed encoding
// of everything that determines the program, so that no two different
// lists of fields share a key.
package cachekey

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// Of is the key of fields, in order.
func Of(fields ...string) string {
	h := sha256.New()
	for _, s := range fields {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}
