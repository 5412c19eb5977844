package trainer

import "math"

var nan = math.NaN()
