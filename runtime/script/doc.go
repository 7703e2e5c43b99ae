// Package script is BehaviorTree.CPP v4's scripting language: the language
// of the Script and ScriptCondition nodes, the Precondition decorator and
// the _successIf, _failureIf, _skipIf, _while, _onSuccess, _onFailure,
// _onHalted and _post attributes. A script is parsed once (Parse) and
// evaluated many times (Program.Eval) against an Env, the blackboard.
//
//	battery.percentage < 0.2 && state != 'DOCKING'
//	retries := 0; goal_reached = false
//	count += 1; msg := 'attempt ' .. count
//
// # The language
//
// A script is statements separated by ';' (BT.CPP also accepts statements
// that simply follow one another: "a := 1 b := 2"). Its value is the value
// of the last statement.
//
// Values: integers (42, 0x2A), reals (3.14, 1e-3), strings in single quotes
// (no escapes: a quote always ends the string), true and false, variables, and
// registered enum names. Names are letters, digits and '_', and may start
// with '@' (the root blackboard). Beyond BT.CPP, a dotted name reads into
// structured values: battery.percentage, goal.pose.position.x,
// scan.ranges.0 — struct fields by their Go name, their snake_case
// spelling (power_supply_status for PowerSupplyStatus), or a rosname or json
// tag; maps with string keys by key; lists by index; through pointers.
// Dotted names are read-only, and the numbers they read are int or float64
// whatever the field's Go type.
//
// Operators, from the loosest to the tightest binding:
//
//	:= = += -= *= /=    assignment (the right side is a whole expression)
//	c ? a : b            conditional
//	||                   logical or
//	&&                   logical and
//	== != < <= > >=      comparison; chains: a < b < c is a < b && b < c
//	| ^                  bitwise or, xor
//	&                    bitwise and
//	+ - ..               add, subtract, concatenate strings
//	* /                  multiply, divide
//	- ! ~                negate, not, bitwise complement (prefix)
//
// Note that the bitwise operators bind tighter than comparisons (x & 1 == 1
// is (x & 1) == 1), unlike C. There is no '%' and no other spelling of the
// logical operators ('and', 'or', 'not' are plain names).
//
// # Types, as BehaviorTree.CPP has them
//
// The semantics are BT.CPP 4.10's, checked case by case against it (see
// testdata/btcpp). What may surprise:
//
//   - Arithmetic is always real: 5/2 is 2.5, 1+1 is the real 2.0, 1/0 is
//     +Inf and 0/0 NaN. Only integer literals (and values read from the
//     Env) are integers, and not negative ones: -5 is unary minus applied
//     to 5, the real -5.0, so x := -5 makes a float64 variable. Storing a real into an integer
//     variable turns it back into an integer when it has no fraction (x :=
//     x + 1 keeps an int x an int) and fails otherwise (x += 0.5).
//   - Registered enum names are reals too (RED is 1.0), and they win over a
//     variable with the same name.
//   - Integers beyond 2^53 cannot take part in any operation: converting
//     them to a real would lose precision, and BT.CPP refuses.
//   - '==' and '!=' between numbers are within float's epsilon (2^-23,
//     absolute): 0.1 + 0.2 == 0.3, but also 1 == 1.0000001, and +Inf !=
//     +Inf. Every ordering involving NaN is true.
//   - A string compared with a number is read as a number: 'true' and
//     'false' are 1 and 0, an enum name is its value, otherwise the number at
//     its start ('3abc' == 3 holds; 'abc' == 3 is an error). Two strings
//     compare byte by byte ('10' < '9').
//   - '+' adds numbers or joins two strings ('1' + '2' is '12'); '..' joins
//     a string with a string or a number ('v' .. 2.5 is 'v2.500000': reals
//     print as C's "%f"). A string and a number cannot be added, and '..'
//     between two numbers is an error.
//   - '&&' and '||' do not short-circuit: both sides are evaluated, and
//     their operands must convert to bool (see Truthy: 5 && 1 is an error,
//     2.0 && 1 is not). Strings are not allowed.
//   - '!' and the condition of '?' test a number against zero instead (so
//     !5 is false and -1 ? 'y' : 'n' is 'y'); the condition of '?' reads a
//     string as a number ('0' ? 1 : 2 is 2, 'abc' ? 1 : 2 is an error).
//   - '~', '&', '|', '^' work on integers, or reals without a fraction, and
//     give reals; '~' drops a fraction instead (~2.5 is -3).
//   - '=' and the compound forms need an existing variable; ':=' creates it
//     or overwrites it. The Env converts the value to the variable's type
//     (Convert gives BT.CPP's rules). An assignment's value is the value as
//     stored.
//   - A variable that exists but was never written has no value: any
//     operation on it is an error.
//
// # Where this package differs from BehaviorTree.CPP, on purpose
//
//   - true, false, comparisons, '!', '&&' and '||' give Go bools where BT.CPP
//     gives the reals 1.0 and 0.0. They behave as 1 and 0 in arithmetic and
//     comparisons; but x := true makes a bool variable, which then rejects
//     0.25 where BT.CPP's real variable would take it.
//   - Malformed scripts that BT.CPP only rejects when they run are rejected
//     by Parse: assigning to something that is not a name ('a' = 1, a + b :=
//     3), and integer literals out of range (BT.CPP reads them as 0).
//   - 1 .. 2 is an error (BT.CPP returns an empty value, which fails later).
//   - ~ of NaN or of a real beyond the int64 range is an error (undefined
//     behaviour in BT.CPP).
//   - When the right side of ':=' fails, BT.CPP has already created the
//     variable, empty; here nothing is created.
//   - Convert is stricter than BT.CPP's blackboard: integer types are
//     range-checked (BT.CPP stores 300 into a uint8 entry), bool variables
//     take only 0 and 1, and a string assigned to a number variable must be a
//     number as a whole and converts to the variable's type (BT.CPP reads
//     '7abc' as 7 and turns the variable into a double).
package script
