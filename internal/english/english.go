// Package english holds the small helpers btrobot's messages share for
// writing English.
package english

// Plural returns one when n is 1 and many otherwise: "1 child", "2
// children", "0 children".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
