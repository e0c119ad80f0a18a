"""Change impact on Go: chains across packages, methods, same-package tests, go test commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from impact_fixture import check

MODULE = '''
#- go.mod
module example.com/m

go 1.21
#- util/util.go
package util

type K struct{ n int }

func F() int {
	return 1$0
}

func (k *K) M() int { return F() + k.n }

func unused() int { return 0 }
#- util/util_test.go
package util

import "testing"

func TestF(t *testing.T) {
	if F() != 1 {
		t.Fatal("F")
	}
}

func TestNothing(t *testing.T) {}

func BenchmarkF(b *testing.B) {
	for i := 0; i < b.N; i++ {
		F()
	}
}
#- util/extra_test.go
package util

import "testing"

func TestExtra(t *testing.T) {}
#- app/app.go
package app

import "example.com/m/util"

func Run() int {
	k := &util.K{}
	return k.M() + util.F()
}
#- app/app_test.go
package app

import "testing"

func TestRun(t *testing.T) {
	if Run() != 2 {
		t.Fatal("Run")
	}
}
'''

SWAP = '''
#- go.mod
module example.com/s

go 1.21
#- names/names.go
package names

import "regexp"

var re = regexp.MustCompile("^[a-z]+$")

func Valid(s string) bool { return re.MatchString(s) }
#- names/names_test.go
package names

import "testing"

func TestValid(t *testing.T) {
	if !Valid("abc") {
		t.Fatal("abc")
	}
}
#- logs/logs_test.go
package logs

import (
	"regexp"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	if !regexp.MustCompile("a").MatchString(strings.ToLower("A")) {
		t.Fatal("no a")
	}
}
#- logs/other_test.go
package logs

import "testing"

func TestOther(t *testing.T) {}
'''

CASES = {
    "chain across packages": MODULE + '''
#? blast-radius $0
0 util.F | distance 0: changed
1 app.Run | app.Run calls util.F at app/app.go:7
1 util.K.M
1 util.TestF | util.TestF calls util.F at util/util_test.go:6
1 util.BenchmarkF
2 app.TestRun | app.TestRun calls app.Run at app/app_test.go:6
files: util/util.go app/app.go util/util_test.go app/app_test.go
#? blast-radius util/util.go:10
#? blast-radius util/util.go:9 --depth 1
0 util.K.M
1 app.Run
''',
    "go test commands: one per package, -run and -bench": MODULE + '''
#? tests $0
util/util_test.go::TestF reference
util/util_test.go::BenchmarkF reference
app/app_test.go::TestRun reference
util/extra_test.go package ?
$ go test ./util -run '^(TestF|TestExtra)$' -bench '^BenchmarkF$'
$ go test ./app -run '^TestRun$'
#? tests unused
util/util_test.go convention ? | naming convention: util/util.go ↔ util/util_test.go
util/extra_test.go package ? | same package as util/util.go
$ go test ./util -run '^(TestF|TestNothing|TestExtra)$' -bench '^BenchmarkF$'
''',
    "go.mod below the root: commands run there": '''
#- svc/go.mod
module example.com/svc

go 1.21
#- svc/calc/calc.go
package calc

func Add(a, b int) int { return a + b }
#- svc/calc/calc_test.go
package calc

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("Add")
	}
}
#? tests svc/calc/calc.go
svc/calc/calc_test.go::TestAdd reference
$ cd svc && go test ./calc -run '^TestAdd$'
''',
    "tests reached past the walk's depth, and test files named like the changed file": '''
#- go.mod
module example.com/j

go 1.21
#- codec/api.go
package codec

func Marshal(v any) string { return stage1(v) }

func stage1(v any) string { return stage2(v) }

func stage2(v any) string { return stage3(v) }

func stage3(v any) string { return encodeMap(v) }
#- codec/reflect_map.go
package codec

func encodeMap(v any) string {
	return "{}"$0
}
#- cases/api_test.go
package cases

import (
	"testing"

	"example.com/j/codec"
)

func TestMarshal(t *testing.T) {
	if codec.Marshal(1) == "" {
		t.Fatal("empty")
	}
}
#- cases/map_test.go
package cases

var mapCases = []any{map[string]int{"a": 1}}
#- cases/slice_test.go
package cases

var sliceCases = []any{[]int{1}}
#? tests codec/reflect_map.go
cases/map_test.go name ? | file names share the word 'map': codec/reflect_map.go and cases/map_test.go
cases/api_test.go::TestMarshal reach | distance 5: cases.TestMarshal calls codec.Marshal
$ go test ./cases
#? tests codec/reflect_map.go --depth 8
cases/map_test.go name ?
cases/api_test.go::TestMarshal reference | distance 5:
$ go test ./cases
''',
    # A drop-in dependency swap (`"regexp"` → `"github.com/grafana/regexp"`, the same
    # name bound): the test files importing the swapped package rank first, before the
    # tests reaching the file's definitions; a test importing neither is not listed by it.
    "a swapped import": SWAP + '''
#~ names/names.go
package names

import "github.com/grafana/regexp"

var re = regexp.MustCompile("^[a-z]+$")

func Valid(s string) bool { return re.MatchString(s) }
#? tests names/names.go
logs/logs_test.go import ? | names/names.go swaps its import of 'regexp' for 'github.com/grafana/regexp'
names/names_test.go::TestValid reference | distance 1
$ go test ./logs -run '^TestLine$'
$ go test ./names -run '^TestValid$'
''',
    # An import added (no other import of that name before) is no swap.
    "an added import": SWAP + '''
#~ names/names.go
package names

import (
	"regexp"
	"strings"
)

var re = regexp.MustCompile("^[a-z]+$")

func Valid(s string) bool { return re.MatchString(strings.ToLower(s)) }
#? tests names/names.go
names/names_test.go::TestValid reference | distance 1
$ go test ./names -run '^TestValid$'
''',
    # The test file named for the changed file in its folder (`set.go` ↔ `set_test.go`)
    # ranks with the tests using a changed symbol through an uncertain edge (here a call
    # on a value of an interface written in place: a name-matched candidate), by relevance: the naming
    # convention weighs more than one uncertain use.
    "the same-folder test file of the changed file ranks with uncertain direct users": '''
#- go.mod
module example.com/c

go 1.21
#- lib/set.go
package lib

type Set struct{ n int }

func (s *Set) Put() int { return s.n }
#- lib/set_test.go
package lib

import "testing"

func TestSet(t *testing.T) {}
#- lib/put_test.go
package lib

import "testing"

func TestPut(t *testing.T) {
	m := map[string]any{}
	_ = m["a"].(interface{ Put() int }).Put()
}
#? tests lib/set.go
lib/set_test.go convention ? | naming convention: lib/set.go ↔ lib/set_test.go
lib/put_test.go::TestPut reference ?
$ go test ./lib -run '^(TestSet|TestPut)$'
''',
    # Without go.mod (a GOPATH-era package) the repository's import path is the one its
    # external test packages import their own folder's package by (`package flag_test`
    # importing "example.com/x/flag"); a standard-library path of the same name is not it.
    "no go.mod: external test packages reach the package by its import path": '''
#- flag.go
package flag

func Lookup(name string) string {
	return name$0
}
#- example_test.go
package flag_test

import (
	"fmt"

	"example.com/x/flag"
)

func ExampleLookup() {
	fmt.Println(flag.Lookup("v"))
}
#- sub/sub.go
package sub

func Join(a string) string { return a }
#- sub/sub_test.go
package sub_test

import (
	"testing"

	sub "example.com/x/flag/sub"
)

func TestJoin(t *testing.T) {
	if sub.Join("a") != "a" {
		t.Fatal("Join")
	}
}
#- strings/strings.go
package strings

func Cut(s string) string { return s }
#- strings/strings_test.go
package strings_test

import (
	"strings"
	"testing"
)

func TestCut(t *testing.T) {
	_ = strings.Cut("a", "")
}
#? tests $0
example_test.go::ExampleLookup reference | calls flag.Lookup at example_test.go:10
$ go test . -run '^ExampleLookup$'
#? tests sub/sub.go
sub/sub_test.go::TestJoin reference
$ go test ./sub -run '^TestJoin$'
#? tests strings/strings.go
strings/strings_test.go convention ?
$ go test ./strings -run '^TestCut$'
''',
    "explore a Go symbol": MODULE + '''
#? explore F --budget 300
util.F
#? explore run app --budget 300
app.Run
''',
}


@pytest.mark.parametrize("name", list(CASES))
def test_go_impact(name: str, tmp_path: Path) -> None:
    check(CASES[name], tmp_path / "repo")
