package main

import (
	"math"
	"testing"
)

// The DOLL report's sentences, each fed numbers where opposite things
// hold.
func TestDOLLClaims(t *testing.T) {
	nan := math.NaN()
	checkClaims(t, []claim{
		{"near", dollNear(80, 81.5) + " " + dollNear(76, 80) + " " + dollNear(84, 80), []string{"close to below above"}, nil},

		{"paper below the bound, ours above", dollGapLine(80.4, 69.5, 80.2, 79.8, 0.1, "Eq. 16", ""),
			[]string{"Eq. 16 at the runs' N_s predicts 80.2%; ours is close to it (+0.2 points).", "The paper's 69.5% is 10.3 points below Corollary 2's bound (79.8%)", "ours is 0.6 points above the bound."},
			[]string{"all the same", "standard errors"}},
		{"paper and ours below the bound", dollGapLine(75, 69.5, 80.2, 79.8, 0.1, "Eq. 16", ""),
			[]string{"ours is below it (-5.2 points).", "ours is 4.8 points below the bound all the same"}, []string{"above the bound"}},
		{"paper within noise", dollGapLine(70, 71.5, 70.2, 79.8, 1.4, "Eq. 22", "unused"),
			[]string{"Eq. 22 at the runs' N_s predicts 70.2%", "The paper's 71.5% is within two standard errors of our mean (1.4 points)."}, []string{"Corollary", "unused"}},
		{"paper above, beyond noise", dollGapLine(76.6, 81.7, 76.6, nan, 1.4, "Eq. 22", "the paper gives no rates"),
			[]string{"The paper's 81.7% is 5.1 points above ours, more than two standard errors of our mean (1.4 points): the paper gives no rates."}, []string{"within", "Corollary"}},
		{"paper below, not under the bound", dollGapLine(85, 82.6, 80.2, 79.8, 0.1, "Eq. 16", ""),
			[]string{"ours is above it (+4.8 points).", "The paper's 82.6% is 2.4 points below ours, more than two standard errors"}, []string{"credits"}},

		{"trend as the paper", dollTrendLine(80, 91, 82), []string{"the higher α cost less", "the longer deadline cost less", "as the paper found"}, []string{"did not", "unlike"}},
		{"trend unlike", dollTrendLine(92, 91, 93), []string{"the higher α did not cost less (92.0%", "the longer deadline did not cost less (93.0%", "unlike the paper"}, []string{"as the paper found"}},

		{"fewer > 10%", dollFewerLine(15, 29, 91.2, 82.2), []string{"rents 15 preemptible instances for θ/θ0 = 1.05 and 29 for 1.10", "9.0 points more (10.9% relative", "more than 10% as in the paper"}, []string{"not the paper's"}},
		{"fewer ≤ 10%", dollFewerLine(15, 16, 85, 80), []string{"5.0 points more (6.2% relative", "not the paper's > 10%"}, []string{"as in the paper"}},

		{"quality unaffected", dollQualityLine(0.0004, 72), []string{"Over the 72 static runs", "at most 0.04%", "did not change the final model, as in the paper"}, []string{"unlike"}},
		{"quality affected", dollQualityLine(0.05, 72), []string{"at most 5%", "changed the final model by more than 1%, unlike"}, []string{"did not change"}},

		{"het cheaper", dollHetCheaperLine([]float64{80, 91, 82}, []float64{75, 88, 84}), []string{"in 2 of 3 settings (75.0% against 80.0%; 88.0% against 91.0%; 84.0% against 82.0%)", "the paper's observation"}, []string{"unlike"}},
		{"het dearer", dollHetCheaperLine([]float64{80, 91, 82}, []float64{85, 92, 81}), []string{"in 1 of 3 settings", "unlike the paper"}, []string{"observation"}},

		{"het spreads", dollSpreadLine(0.8, 6, 40, 500), []string{"by 6.0 points (standard deviation) with heterogeneous rates against 0.8", "500 s against 40 s", "as the paper says"}, []string{"unlike"}},
		{"het does not spread", dollSpreadLine(0.8, 0.5, 40, 500), []string{"did not widen both spreads here, unlike"}, []string{"as the paper says"}},

		{"no outliers", dollNoSavingLine(0, 36), []string{"All 36 heterogeneous static runs cost less", "the paper saw outliers"}, nil},
		{"outliers", dollNoSavingLine(3, 36), []string{"3 of the 36 heterogeneous static runs cost at least as much", "as the paper's Fig. 4 outliers did"}, []string{"All"}},

		{"adaptive cheaper, late", dollAdaptiveLine(80, 72, 30, 50.5, 0.93, 0.9, 7, 12), []string{"Adaptive cost 72.0% against static's 80.0% (10.0% relative saving), cheaper as in the paper.", "It rented more preemptible instances on average (time-weighted mean N_s 50.5 against static's 30.0)", "its last estimate averaged 0.930 against α = 0.9", "past the deadline θ in 7 of 12 runs"}, []string{"not cheaper", "met θ", "no more"}},
		{"adaptive dearer, on time", dollAdaptiveLine(80, 85, 30, 20, 0.9, 0.9, 0, 12), []string{"not cheaper, unlike the paper", "It rented no more preemptible", "All 12 of its runs met θ."}, []string{"cheaper as in", "past the deadline"}},

		{"paper's adaptive at π_s/π_o", dollAllSpotLine([]float64{66.5, 56.5, 54.6, 54.6, 52.9, 57.2, 53.7}, 55.1, 65.1, 78),
			[]string{"π_s/π_o = 55.1%", "6 of the paper's 7 adaptive ratios are within 3 points of it, as if its adaptive method had kept nearly every worker preemptible", "ours, 65.1–78.0%, are 10.0 points or more above it."}, nil},
		{"paper's adaptive elsewhere, ours below", dollAllSpotLine([]float64{66.5, 70}, 55.1, 51.6, 78), []string{"0 of the paper's 2", "ours, 51.6–78.0%, reach 3.5 points below it"}, []string{"as if", "or more above"}},

		{"K: saving grows", dollKLine([]int{20, 10, 4}, []float64{6400, 3200, 1280}, []float64{2.6, 4.9, 9.2}), []string{"2.6% at K = 20 (θ0 = 6400 s), 4.9% at K = 10 (θ0 = 3200 s), 9.2% at K = 4", "it grows as K"}, []string{"does not"}},
		{"K: saving does not grow", dollKLine([]int{20, 10, 4}, []float64{6400, 3200, 1280}, []float64{2.6, 1.9, 9.2}), []string{"does not grow steadily"}, []string{"it grows"}},

		{"all below bound", dollBoundLine(8, nil), []string{"All 8 of Fig. 5's", "as in the paper"}, nil},
		{"none below bound", dollBoundLine(0, []string{"a", "b"}), []string{"None of Fig. 5's 2", "where the paper's all are"}, []string{"All"}},
		{"some below bound", dollBoundLine(6, []string{"static, high 80.1% against 79.8%", "static, low"}), []string{"6 of Fig. 5's 8", "(the paper: all); above it: static, high 80.1% against 79.8%; static, low."}, nil},

		{"low twice", dollLowLine(20, 41, 2.05), []string{"saved 41.0% against 20.0% at the high, 2× as much, the paper's \"twice as much\".", "2× the high price's at these traces' means."}, []string{"(the paper: twice", "does not give"}},
		{"low 1.5×", dollLowLine(20, 30, 1.54), []string{"1.5× as much (the paper: twice as much).", "1.5× the high price's at these traces' means, and 1.5× at the paper's", "does not give the paper's twice either"}, []string{"the paper's \"twice"}},

		{"table as the paper", dollTableLine([]float64{80, 70, 79}, []float64{66, 57, 60}, []float64{81, nan, 80}),
			[]string{"Adaptive cost less than static in 3 of 3 rows (57.0–66.0%", "static was below Corollary 2's bound in 2 of the 2 rows that have one"}, nil},
		{"table unlike", dollTableLine([]float64{80, 70, 79}, []float64{82, 57, 80}, []float64{79, nan, 78}),
			[]string{"Adaptive cost less than static in 1 of 3 rows (57.0–82.0%", "in 0 of the 2 rows"}, nil},

		{"optimizer irrelevant", dollOptimizerLine(80.12, 80.12, 0.36, 0.47), []string{"80.12% and 80.12%", "the same to 0.05 points", "(0.36 against 0.47)"}, []string{"points apart"}},
		{"optimizer matters", dollOptimizerLine(80.12, 81.5, 0.36, 0.47), []string{"1.38 points apart"}, []string{"the same to"}},

		{"deadlines met", dollDeadlineLine(0, 72, 0), []string{"All 72 static runs"}, []string{"after"}},
		{"deadlines missed", dollDeadlineLine(5, 72, 0.021), []string{"5 of the 72 static runs", "by up to 2.1%"}, []string{"All"}},
	})
	if f := dollPriceFactor(0.286, 0.158, 0.186, 0.058); math.Abs(f-(0.128/0.186)/(0.128/0.286)) > 1e-12 {
		t.Errorf("dollPriceFactor at the paper's prices = %v; want (0.128/0.186)/(0.128/0.286) ≈ 1.54", f)
	}
}
