package repro_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/rtnlsim/rtnlsim/internal/repro/seeds"

	"github.com/rtnlsim/rtnlsim/internal/repro"
	"github.com/stretchr/testify/require"
)

// threadTexts is a folder holding the text of each seed's thread, one file
// per seed named by its number ("000_....txt"): RTNLSIM_SEED_TEXTS. The
// threads are public; their texts are not part of the repository.
func threadTexts() string { return os.Getenv("RTNLSIM_SEED_TEXTS") }

var (
	reMinSec = regexp.MustCompile(`(\d+)m(\d+(?:\.\d+)?)s`)
	reReal   = regexp.MustCompile(`real\s+(\d+(?:\.\d+)?)\s*$`)
	reSec    = regexp.MustCompile(`(\d+(?:\.\d+)?) seconds`)
)

// parseQuote reads the number a quote publishes, in seconds for times;
// ok is false when the quote has none of the known forms.
func parseQuote(q string) (float64, bool) {
	if m := reMinSec.FindStringSubmatch(q); m != nil {
		min, _ := strconv.ParseFloat(m[1], 64)
		sec, _ := strconv.ParseFloat(m[2], 64)
		return 60*min + sec, true
	}
	if m := reReal.FindStringSubmatch(q); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return v, true
	}
	if m := reSec.FindStringSubmatch(q); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		return v, true
	}
	return 0, false
}

// slowSeeds take long to model (seed 003: about 30 s on an idle
// machine, minutes under load; seed003's TestSeed003Table covers that model):
// the tests run them with FiguresOnly unless RTNLSIM_REPRO_FULL=1.
var slowSeeds = map[string]bool{"003": true}

func tables(t *testing.T) map[string]*repro.Table {
	t.Helper()
	out := map[string]*repro.Table{}
	for _, s := range repro.Seeds() {
		o := repro.Options{FiguresOnly: slowSeeds[s.ID] && os.Getenv("RTNLSIM_REPRO_FULL") != "1"}
		tb, err := repro.Run(context.Background(), s.ID, o)
		require.NoError(t, err, "seed %s", s.ID)
		out[s.ID] = tb
	}
	return out
}

var cached map[string]*repro.Table

func allTables(t *testing.T) map[string]*repro.Table {
	if cached == nil {
		cached = tables(t)
	}
	return cached
}

func TestSeedsRegistered(t *testing.T) {
	ids := repro.IDs()
	for _, want := range []string{"000", "001", "002", "003"} {
		require.Contains(t, ids, want)
	}
	for _, s := range repro.Seeds() {
		require.NotEmpty(t, s.Summary, s.ID)
	}
}

// Every figure the threads publish is a row, and the rows say what they are.
func TestSeedRows(t *testing.T) {
	want := map[string][]float64{
		"000": {243, 70, 54, 30, 1.91, 6.15, 0.640, 5.324, 48.605, 73.219},
		"001": {30.596, 7.601},
		"002": {541.3, 33.5, 18.3, 20.1, 26.6, 26.7},
		"003": {0.064, 0.441, 438.207, 850},
	}
	for id, vals := range want {
		tb, ok := allTables(t)[id]
		if !ok {
			continue // skipped in -short
		}
		for _, v := range vals {
			found := false
			for _, r := range tb.Rows {
				found = found || r.Seed.Value == v
			}
			require.True(t, found, "seed %s: no row publishes %v", id, v)
		}
		if tb.Profile == repro.SkippedText {
			continue
		}
		fitted := 0
		for _, r := range tb.Rows {
			if r.Role == repro.Fitted {
				fitted++
			}
			if r.Role == repro.Qualitative {
				require.NotNil(t, r.Agrees, "seed %s row %q", id, r.Scenario)
			}
		}
		require.Positive(t, fitted, "seed %s has no fitted row: what is its seed-era profile fitted to?", id)
		require.NotEmpty(t, tb.Profile, id)
	}
	// The model's outcomes of seed 002's dump cases are the seed's.
	for _, r := range allTables(t)["002"].Rows {
		if r.Agrees != nil {
			require.True(t, *r.Agrees, "seed 002 %q: model %s", r.Scenario, r.Model.Text)
		}
	}
}

// Every row quotes the words that publish it, a quote with a number
// publishes the row's value, and, given the thread texts, the quote is in
// its thread.
func TestPublishedValuesMatchSeedText(t *testing.T) {
	for id, tb := range allTables(t) {
		require.NotEmpty(t, tb.Rows, "seed %s", id)
		for _, r := range tb.Rows {
			require.NotEmpty(t, r.Seed.Quote, "seed %s row %q", id, r.Scenario)
			if cells := strings.Split(r.Seed.Quote, "|"); len(cells) == 4 {
				// Seed 002's table: devs | hash | xa | delta.
				col := 1
				if strings.HasPrefix(r.Scenario, "xarray") {
					col = 2
				}
				v, err := strconv.ParseFloat(strings.TrimSpace(cells[col]), 64)
				require.NoError(t, err)
				require.Equal(t, v, r.Seed.Value, "seed %s row %q: quote %q", id, r.Scenario, r.Seed.Quote)
				require.True(t, strings.HasSuffix(r.Scenario, " "+strings.TrimSpace(cells[0])+" devs"), "seed %s row %q: quote %q", id, r.Scenario, r.Seed.Quote)
			} else if v, ok := parseQuote(r.Seed.Quote); ok {
				require.InDelta(t, v, r.Seed.Value, 1e-9, "seed %s row %q: quote %q", id, r.Scenario, r.Seed.Quote)
			}
			if r.Role == repro.NotModelled {
				require.Nil(t, r.Model.Value, "seed %s row %q: not modelled with a number", id, r.Scenario)
				require.NotEmpty(t, r.Model.Text, "seed %s row %q: not modelled without a reason", id, r.Scenario)
			}
		}
	}
	dir := threadTexts()
	if dir == "" {
		t.Log("RTNLSIM_SEED_TEXTS is not set: each quote was checked against its number, not against its thread's text")
		return
	}
	for id, tb := range allTables(t) {
		files, err := filepath.Glob(filepath.Join(dir, id+"_*.txt"))
		require.NoError(t, err)
		require.Len(t, files, 1, "RTNLSIM_SEED_TEXTS=%s: no single text for seed %s", dir, id)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		// Quoted replies prefix lines with "> "; a quote is matched with
		// them removed.
		var text strings.Builder
		for _, l := range strings.Split(string(b), "\n") {
			text.WriteString(strings.TrimLeft(l, "> "))
			text.WriteString("\n")
		}
		for _, r := range tb.Rows {
			require.True(t, strings.Contains(text.String(), r.Seed.Quote) || strings.Contains(string(b), r.Seed.Quote),
				"seed %s row %q: %q is not in %s", id, r.Scenario, r.Seed.Quote, files[0])
		}
	}
}

func TestErrorsAreComputed(t *testing.T) {
	for id, tb := range allTables(t) {
		for _, r := range tb.Rows {
			if r.Model.Value != nil && !math.IsNaN(r.Seed.Value) {
				require.NotNil(t, r.ErrorPct, "seed %s row %q", id, r.Scenario)
				require.InDelta(t, 100*(*r.Model.Value-r.Seed.Value)/r.Seed.Value, *r.ErrorPct, 1e-9)
			}
			if r.Role == repro.Fitted {
				require.NotNil(t, r.Model.Value)
			}
		}
	}
}

func TestFormats(t *testing.T) {
	for id, tb := range allTables(t) {
		var js bytes.Buffer
		require.NoError(t, repro.Write(&js, tb, "json"))
		var back map[string]any
		require.NoError(t, json.Unmarshal(js.Bytes(), &back), "seed %s json", id)
		require.Len(t, back["rows"], len(tb.Rows))

		var cs bytes.Buffer
		require.NoError(t, repro.Write(&cs, tb, "csv"))
		recs, err := csv.NewReader(&cs).ReadAll()
		require.NoError(t, err)
		require.Equal(t, repro.CSVHeader, recs[0])
		require.Len(t, recs, len(tb.Rows)+1)

		var tx bytes.Buffer
		require.NoError(t, repro.Write(&tx, tb, "table"))
		for _, r := range tb.Rows {
			require.Contains(t, tx.String(), r.Scenario)
		}
	}
	require.Error(t, repro.Write(&bytes.Buffer{}, &repro.Table{}, "xml"))
}

func TestUnknownSeed(t *testing.T) {
	_, err := repro.Lookup("999")
	require.Error(t, err)
	for _, id := range repro.IDs() {
		require.Contains(t, err.Error(), id)
	}
	s, err := repro.Lookup("0")
	require.NoError(t, err)
	require.Equal(t, "000", s.ID)
}
