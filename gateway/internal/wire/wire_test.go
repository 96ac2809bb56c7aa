package wire

import "testing"

// A password is hidden where it stands as a URL's password or as a token of its own, never
// as a character inside another word (a one-character password masked every such character).
func TestRedactWholeTokensOnly(t *testing.T) {
	cases := []struct {
		secrets []string
		msg     string
		want    string
	}{
		{[]string{"p"}, `error parsing uri: mongodb://writer:p@127.0.0.1:1/ unexpected`, `error parsing uri: mongodb://writer:***@127.0.0.1:1/ unexpected`},
		{[]string{"p"}, `error parsing uri`, `error parsing uri`},
		{[]string{"p"}, `password "p" refused`, `password "***" refused`},
		{[]string{"p"}, `p`, `***`},
		{[]string{"s3cret-pw-77"}, `auth failed (s3cret-pw-77)`, `auth failed (***)`},
		{[]string{"s3cret-pw-77"}, `xs3cret-pw-77 is not ours`, `xs3cret-pw-77 is not ours`},
		{[]string{"-pw"}, `user:-pw@h and x-pw`, `user:***@h and x***`},
		{[]string{"p%40ss", "p@ss"}, `u:p%40ss@h, decoded p@ss`, `u:***@h, decoded ***`},
		{[]string{"ab"}, `ab ab aab abab ab`, `*** *** aab abab ***`},
		{[]string{"é"}, `café é`, `café ***`},
	}
	for _, c := range cases {
		if got := NewRedactor("***", c.secrets...).Redact(c.msg); got != c.want {
			t.Errorf("Redact(%q) with %q = %q, want %q", c.msg, c.secrets, got, c.want)
		}
	}
}

// A parser's quoted parts are hidden (they may be part of a password) except the public names
// given, so a refusal can still say which option was wrong.
func TestHideQuotedKeepsOnlyNamesShown(t *testing.T) {
	names := map[string]bool{"sslmode": true}
	cases := [][2]string{
		{`pq: wrong value for "sslmode": "s3cret" is not supported`, `pq: wrong value for "sslmode": (…) is not supported`},
		{`parse "postgres://u:s3cret@h": invalid port ":9x"`, `parse (…): invalid port (…)`},
		{`wrong value for 'sslmode'`, `wrong value for 'sslmode'`},
		{`"SSLMODE" and "sslmode2"`, `(…) and (…)`},
	}
	for _, c := range cases {
		if got := HideQuoted(c[0], names); got != c[1] {
			t.Errorf("HideQuoted(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
