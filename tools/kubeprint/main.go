// Command kubeprint answers JSON-lines cases with kubectl's own formatting, for Karta's tests of
// `karta get` and `karta describe`: {"age": MILLISECONDS} is apimachinery's duration.HumanDuration,
// {"rows": [[cells]], "minwidth": N, "padding": N} is text/tabwriter as kubectl's printers configure it
// (cells joined by tabs, one line per row). Each answer is one JSON line: {"text": "..."}.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

type request struct {
	Age      *int64     `json:"age"`
	Rows     [][]string `json:"rows"`
	MinWidth int        `json:"minwidth"`
	Padding  int        `json:"padding"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var text string
		if r.Age != nil {
			text = duration.HumanDuration(time.Duration(*r.Age) * time.Millisecond)
		} else {
			var b bytes.Buffer
			w := tabwriter.NewWriter(&b, r.MinWidth, 4, r.Padding, ' ', 0)
			for _, row := range r.Rows {
				fmt.Fprintln(w, strings.Join(row, "\t"))
			}
			w.Flush()
			text = b.String()
		}
		if err := out.Encode(map[string]string{"text": text}); err != nil {
			os.Exit(1)
		}
	}
}
