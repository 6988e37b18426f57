package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReproJSONAndCSV(t *testing.T) {
	out, _, err := runCLI(t, "", "repro", "001", "--format", "json", "-q")
	require.NoError(t, err)
	var tb struct {
		Seed   string `json:"seed"`
		Source struct {
			List, Date, Subject, Author string
		} `json:"source"`
		Rows []struct {
			Scenario string `json:"scenario"`
			Role     string `json:"role"`
			Seed     struct {
				Quote string   `json:"quote"`
				Value *float64 `json:"value"`
			} `json:"seed"`
			ErrorPct *float64 `json:"error_pct"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &tb))
	require.Equal(t, "001", tb.Seed)
	require.Equal(t, "netdev", tb.Source.List)
	require.Contains(t, tb.Source.Subject, "promote secondaries")
	require.Len(t, tb.Rows, 2)
	for _, r := range tb.Rows {
		require.NotNil(t, r.Seed.Value)
		require.NotEmpty(t, r.Seed.Quote)
		require.NotNil(t, r.ErrorPct)
	}

	out, _, err = runCLI(t, "", "repro", "1", "--format", "csv", "-q")
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "seed", recs[0][0])
	require.Len(t, recs, 3)
}

func TestReproTable(t *testing.T) {
	out, errOut, err := runCLI(t, "", "repro", "000")
	require.NoError(t, err)
	require.Contains(t, out, "243.0 s")
	require.Contains(t, out, "source: netdev, 2021-12-02")
	require.Contains(t, out, "fitted")
	require.Contains(t, out, "predicted")
	require.Contains(t, errOut, "seed 000", "progress goes to stderr")
}

// Seed 001 always states the layout search's result; --layouts adds its
// table, in the text and the JSON.
func TestReproLayouts(t *testing.T) {
	out, _, err := runCLI(t, "", "repro", "001", "-q")
	require.NoError(t, err)
	require.Contains(t, out, "the published pair fits S in [3, 4] secondaries per subnet")
	require.Contains(t, out, "one /8 does not")
	require.NotContains(t, out, "layout search:")

	out, _, err = runCLI(t, "", "repro", "001", "--layouts", "-q")
	require.NoError(t, err)
	require.Contains(t, out, "layout search:")
	require.Regexp(t, `(?m)^\s+3\s+10000\s.*\syes$`, out)
	require.Regexp(t, `(?m)^\s+39999\s+1\s.*\sno$`, out)

	out, _, err = runCLI(t, "", "repro", "001", "--layouts", "--format", "json", "-q")
	require.NoError(t, err)
	var tb struct {
		Sections []struct {
			Header []string   `json:"header"`
			Rows   [][]string `json:"rows"`
		} `json:"sections"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &tb))
	require.Len(t, tb.Sections, 1)
	require.Equal(t, "S", tb.Sections[0].Header[0])
	require.Len(t, tb.Sections[0].Rows, 35, "one row per divisor of 40,000")

	_, _, err = runCLI(t, "", "repro", "000", "--layouts", "-q")
	require.ErrorContains(t, err, "no layout search")

	svg := filepath.Join(t.TempDir(), "layouts.svg")
	_, _, err = runCLI(t, "", "repro", "001", "--layouts-plot", svg, "-q")
	require.NoError(t, err)
	b, err := os.ReadFile(svg)
	require.NoError(t, err)
	require.Contains(t, string(b), "addresses per subnet")
	_, _, err = runCLI(t, "", "repro", "001", "--layouts-plot", "x.txt", "-q")
	require.ErrorContains(t, err, "unknown chart format")
}

func TestReproErrors(t *testing.T) {
	_, _, err := runCLI(t, "", "repro", "999")
	require.Error(t, err)
	for _, id := range []string{"000", "001", "002", "003"} {
		require.Contains(t, err.Error(), id)
	}
	_, _, err = runCLI(t, "", "repro")
	require.ErrorContains(t, err, "000")
	_, _, err = runCLI(t, "", "repro", "000", "--format", "xml")
	require.ErrorContains(t, err, "--format")
	_, _, err = runCLI(t, "", "repro", "000", "--profile", "x.json")
	require.ErrorContains(t, err, "--kernel")
	_, _, err = runCLI(t, "", "repro", "000", "--kernel", "--profile", "linux-6.18", "-q")
	require.ErrorContains(t, err, "calibrate")
	_, _, err = runCLI(t, "", "repro", "000", "--kernel", "--size", "000/group", "-q")
	require.ErrorContains(t, err, "KEY=N")
	_, _, err = runCLI(t, "", "repro", "000", "--kernel", "--size", "001/promote=5", "-q")
	require.ErrorContains(t, err, "000/one-by-one")
	_, _, err = runCLI(t, "", "repro", "002", "--kernel", "--size", "foo=3", "-q")
	require.ErrorContains(t, err, "seed 002 has no kernel sizes")
}

func TestReproHelpListsSeeds(t *testing.T) {
	out, _, err := runCLI(t, "", "repro", "--help")
	require.NoError(t, err)
	for _, id := range []string{"000", "001", "002", "003"} {
		require.Contains(t, out, "  "+id+"  ")
	}
	require.Contains(t, out, "--kernel")
}
