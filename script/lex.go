package script

import "strings"

// Lines and words the way iproute2's batch mode reads them (lib/utils.c
// getcmdline and makeargs):
//
//   - a line ending in a backslash continues on the next line;
//   - '#' starts a comment anywhere on the (joined) line, even inside a word
//     or quotes, because getcmdline cuts the line before splitting it;
//   - words are separated by space, tab, CR and LF;
//   - a word that begins with ' or " runs to the next same quote character,
//     with no escapes; the word ends there even if no blank follows.

const blanks = " \t\r\n"

// isBlank marks the bytes of blanks.
var isBlank = [256]bool{' ': true, '\t': true, '\r': true, '\n': true}

// rawLine is one logical line: its first physical line number and its text
// with continuations joined and the comment removed.
type rawLine struct {
	line int
	text string
}

// joinLines applies backslash continuation and strips comments.
func joinLines(physical []string) []rawLine {
	out := make([]rawLine, 0, len(physical))
	for i := 0; i < len(physical); i++ {
		start := i + 1
		s := physical[i]
		for strings.HasSuffix(s, `\`) && i+1 < len(physical) {
			i++
			s = s[:len(s)-1] + physical[i]
		}
		// A continuation at end of input joins an empty line.
		s = strings.TrimSuffix(s, `\`)
		if c := strings.IndexByte(s, '#'); c >= 0 {
			s = s[:c]
		}
		out = append(out, rawLine{line: start, text: s})
	}
	return out
}

// splitWords is makeargs. It reports an unterminated quote with the quoted
// rest of the line.
func splitWords(s string) (words []string, unterminated string) {
	words = make([]string, 0, 8) // most lines have fewer words
	i := 0
	for i < len(s) {
		for i < len(s) && isBlank[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		if q := s[i]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[i+1:], q)
			if end < 0 {
				return words, s[i:]
			}
			words = append(words, s[i+1:i+1+end])
			i = i + 1 + end + 1
			continue
		}
		j := i
		for j < len(s) && !isBlank[s[j]] {
			j++
		}
		words = append(words, s[i:j])
		i = j
	}
	return words, ""
}

// quoteWord renders a word so that splitWords gives it back unchanged:
// (a trailing backslash matters only at the end of a line; see line.String)
// bare when that is safe, otherwise in quotes of a kind it does not contain.
// Words containing both quote characters, blanks or '#' cannot be written
// (no valid name or value the parser accepts contains them where it
// matters); they are returned quoted as well as possible.
func quoteWord(s string) string {
	needs := s == "" || s[0] == '\'' || s[0] == '"' || strings.ContainsAny(s, blanks)
	if !needs {
		return s
	}
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}

// matches is iproute2's matches(): word is a non-empty prefix of keyword.
func matches(word, keyword string) bool {
	return word != "" && len(word) <= len(keyword) && keyword[:len(word)] == word
}
