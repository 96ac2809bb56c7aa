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
