// Command gosort-golden writes golden vectors of Go's sort.Slice under the
// comparator of profile code-v0.1.5 (docs/profiles.md 3.3), for 13 to 60 elements:
// the lengths where sort.Slice is pdqsort rather than insertion sort, which
// ome_asp/solver/gosort.py emulates and tests/test_gosort_golden.py checks.
//
// The comparator is not a weak order (a distance difference below 1 ties, and
// that tie is not transitive), so the result depends on the algorithm's every
// comparison: only the real sort.Slice can fix it.
//
//	cd tools/gosort-golden && GOTOOLCHAIN=local go run . ../../tests/golden/gosort
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
)

type item struct {
	name     string
	score    int64
	distance float64
}

// cmp is docs/profiles.md 3.3's comparator: scores, then the truncated distance
// difference (0 below 1, without reaching the name step), then names.
func cmp(a, b item) int {
	if a.score != b.score {
		return int(a.score - b.score)
	}
	if a.distance != b.distance {
		return int(b.distance - a.distance)
	}
	switch {
	case a.name < b.name:
		return 1
	case a.name > b.name:
		return -1
	}
	return 0
}

// Case is one vector: the input in order (names, scores, distances) and the
// input indices in the order sort.Slice leaves them. searched-inputs.json
// holds inputs without Sorted, each found by search.py to tell the emulation
// from one of its mutants.
type Case struct {
	Seed     uint64    `json:"seed,omitempty"`
	Mutant   string    `json:"mutant,omitempty"`
	Names    []string  `json:"names"`
	Scores   []int64   `json:"scores"`
	Distance []float64 `json:"distances"`
	Sorted   []int     `json:"sorted"`
}

// File is one pattern's vectors.
type File struct {
	Go      string `json:"go"`
	Pattern string `json:"pattern"`
	About   string `json:"about"`
	Cases   []Case `json:"cases"`
}

type pattern struct {
	name, about string
	make        func(r *rand.Rand, n int) []item
}

// distances a step apart (a step below 1 chains ties: 0.6 ~ 1.2 ~ 1.8 but 0.6 < 1.8)
func chain(r *rand.Rand, n int, step float64) []item {
	items := make([]item, n)
	for i := range items {
		items[i] = item{score: 15, distance: float64(i) * step}
	}
	return items
}

var steps = []float64{0.3, 0.5, 0.6, 0.9, 1.5}

var patterns = []pattern{
	{"random", "scores 1-3, distances multiples of 0.1 below n/2, in random order",
		func(r *rand.Rand, n int) []item {
			items := make([]item, n)
			for i := range items {
				items[i] = item{score: 1 + r.Int64N(3), distance: float64(r.IntN(5*n)) / 10}
			}
			return items
		}},
	{"chain-shuffled", "one score, distances a random step (0.3-1.5) apart, in random order",
		func(r *rand.Rand, n int) []item {
			items := chain(r, n, steps[r.IntN(len(steps))])
			r.Shuffle(n, func(i, j int) { items[i], items[j] = items[j], items[i] })
			return items
		}},
	{"chain-ascending", "one score, distances a random step apart, nearest first (sorted already, the increasing hint)",
		func(r *rand.Rand, n int) []item { return chain(r, n, steps[r.IntN(len(steps))]) }},
	{"nearly-ascending", "one score, distances a random step apart, nearest first, up to 7 elements moved up to 5 places (partialInsertionSort)",
		func(r *rand.Rand, n int) []item {
			items := chain(r, n, steps[r.IntN(len(steps))])
			for k := r.IntN(8); k > 0; k-- {
				i := r.IntN(n)
				j := max(0, min(n-1, i+r.IntN(11)-5))
				moved := items[i]
				items = slices.Insert(slices.Delete(items, i, i+1), j, moved)
			}
			return items
		}},
	{"descending-noisy", "one score, distances falling by 1.2 each, plus 0, 0.3 or 0.6 (neighbours mostly ordered, some tied: the decreasing hint)",
		func(r *rand.Rand, n int) []item {
			items := make([]item, n)
			for i := range items {
				items[i] = item{score: 15, distance: float64(n-i)*1.2 + float64(r.IntN(3))*0.3}
			}
			return items
		}},
	{"chain-descending", "one score, distances a random step apart, nearest first, a few neighbours swapped",
		func(r *rand.Rand, n int) []item {
			items := chain(r, n, steps[r.IntN(len(steps))])
			slices.Reverse(items)
			for k := r.IntN(7); k > 0; k-- {
				i := r.IntN(n - 1)
				items[i], items[i+1] = items[i+1], items[i]
			}
			return items
		}},
	{"few-values", "scores 1-2, distances from {0, 0.5, 2, 2.5}: many elements the comparator cannot tell apart",
		func(r *rand.Rand, n int) []item {
			values := []float64{0, 0.5, 2, 2.5}
			items := make([]item, n)
			for i := range items {
				items[i] = item{score: 1 + r.Int64N(2), distance: values[r.IntN(len(values))]}
			}
			return items
		}},
	{"organ-pipe", "one score, distances rising then falling (unbalanced partitions, breakPatterns)",
		func(r *rand.Rand, n int) []item {
			step := steps[r.IntN(len(steps))]
			items := make([]item, n)
			for i := range items {
				items[i] = item{score: 15, distance: float64(min(i, n-1-i)) * step}
			}
			return items
		}},
}

// sorted is OME's sortMatches over items: less(i, j) := cmp(i, j) > 0.
func sorted(c Case) Case {
	order := make([]int, len(c.Names))
	for i := range order {
		order[i] = i
	}
	at := func(k int) item { return item{c.Names[k], c.Scores[k], c.Distance[k]} }
	sort.Slice(order, func(i, j int) bool { return cmp(at(order[i]), at(order[j])) > 0 })
	c.Sorted = order
	return c
}

func write(dir string, file File) {
	out, err := json.Marshal(file)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, file.Pattern+".json"), append(out, '\n'), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gosort-golden OUTPUT_DIR")
		os.Exit(2)
	}
	const seeds = 3
	for _, p := range patterns {
		file := File{Go: runtime.Version(), Pattern: p.name, About: p.about}
		for n := 13; n <= 60; n++ {
			for s := uint64(0); s < seeds; s++ {
				seed := uint64(n)*100 + s
				r := rand.New(rand.NewPCG(seed, 0x6f6d65))
				items := p.make(r, n)
				// names: distinct, in an order unrelated to the distances
				for i, k := range r.Perm(n) {
					items[i].name = fmt.Sprintf("r%02d", k)
				}
				c := Case{Seed: seed}
				for _, it := range items {
					c.Names, c.Scores, c.Distance = append(c.Names, it.name), append(c.Scores, it.score), append(c.Distance, it.distance)
				}
				file.Cases = append(file.Cases, sorted(c))
			}
		}
		write(os.Args[1], file)
	}
	data, err := os.ReadFile(filepath.Join(os.Args[1], "searched-inputs.json"))
	var inputs []Case
	if err == nil {
		err = json.Unmarshal(data, &inputs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	file := File{Go: runtime.Version(), Pattern: "searched", About: "inputs search.py found, each telling the emulation from one mutant"}
	for _, in := range inputs {
		file.Cases = append(file.Cases, sorted(in))
	}
	write(os.Args[1], file)
}
