package sim

import "fmt"

// BatteryConf describes a robot's battery. Zero fields take the defaults in
// brackets, which give a few percent of drain over a three-minute patrol and a
// full charge in under four minutes on a dock.
type BatteryConf struct {
	// Capacity in ampere-hours [4].
	Capacity float64
	// FullVoltage and EmptyVoltage bound the open-circuit voltage [16.8, 12.8].
	FullVoltage, EmptyVoltage float64
	// InternalResistance in ohms makes the voltage sag under load [0.05].
	InternalResistance float64
	// Initial charge as a fraction in (0, 1] [1: full].
	Initial float64
	// IdleDrain is the fraction of charge used per second at rest [0.0002].
	IdleDrain float64
	// DrainPerMetre and DrainPerRadian add the cost of motion [0.0005, 0.0001].
	DrainPerMetre, DrainPerRadian float64
	// ChargeRate is the fraction of charge gained per second on a dock [0.005].
	ChargeRate float64
}

func (c BatteryConf) withDefaults() (BatteryConf, error) {
	def := func(v *float64, d float64, name string) error {
		if *v < 0 || isNaNOrInf(*v) {
			return fmt.Errorf("battery %s: must be >= 0, got %v", name, *v)
		}
		if *v == 0 {
			*v = d
		}
		return nil
	}
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&c.Capacity, 4, "Capacity"},
		{&c.FullVoltage, 16.8, "FullVoltage"},
		{&c.EmptyVoltage, 12.8, "EmptyVoltage"},
		{&c.InternalResistance, 0.05, "InternalResistance"},
		{&c.Initial, 1, "Initial"},
		{&c.IdleDrain, 0.0002, "IdleDrain"},
		{&c.DrainPerMetre, 0.0005, "DrainPerMetre"},
		{&c.DrainPerRadian, 0.0001, "DrainPerRadian"},
		{&c.ChargeRate, 0.005, "ChargeRate"},
	} {
		if err := def(f.v, f.d, f.name); err != nil {
			return c, err
		}
	}
	if c.Initial > 1 {
		return c, fmt.Errorf("battery Initial: must be a fraction in (0, 1], got %v", c.Initial)
	}
	if c.EmptyVoltage >= c.FullVoltage {
		return c, fmt.Errorf("battery EmptyVoltage %v: must be below FullVoltage %v", c.EmptyVoltage, c.FullVoltage)
	}
	return c, nil
}

// PowerSupplyStatus mirrors sensor_msgs/BatteryState's power_supply_status.
type PowerSupplyStatus uint8

// Power supply states with sensor_msgs/BatteryState's numbering.
const (
	StatusUnknown     PowerSupplyStatus = 0
	StatusCharging    PowerSupplyStatus = 1
	StatusDischarging PowerSupplyStatus = 2
	StatusNotCharging PowerSupplyStatus = 3
	StatusFull        PowerSupplyStatus = 4
)

// String returns the status in lower case, as "charging".
func (s PowerSupplyStatus) String() string {
	switch s {
	case StatusCharging:
		return "charging"
	case StatusDischarging:
		return "discharging"
	case StatusNotCharging:
		return "not charging"
	case StatusFull:
		return "full"
	}
	return "unknown"
}

// BatteryState is what a sensor_msgs/BatteryState reports, in its units:
// Percentage is a fraction in [0, 1], Current is negative while discharging.
type BatteryState struct {
	Percentage float64
	Voltage    float64 // volts
	Current    float64 // amperes
	Charge     float64 // ampere-hours left
	Capacity   float64 // ampere-hours when full
	Status     PowerSupplyStatus
	Present    bool
}

// battery integrates charge over physics steps.
type battery struct {
	conf    BatteryConf
	level   float64 // fraction in [0, 1]
	current float64 // amperes, + charging
	status  PowerSupplyStatus
}

// step updates the charge for dt seconds during which the robot moved dist
// metres and turned turn radians, on a charging dock or not.
func (b *battery) step(dt, dist, turn float64, charging bool) {
	before := b.level
	if charging {
		b.level = min(1, b.level+b.conf.ChargeRate*dt)
	} else {
		b.level = max(0, b.level-b.conf.IdleDrain*dt-b.conf.DrainPerMetre*dist-b.conf.DrainPerRadian*turn)
	}
	// Current from the change of charge: fraction/s * Ah * 3600 s/h = A.
	b.current = (b.level - before) / dt * b.conf.Capacity * 3600
	switch {
	case charging && b.level >= 1:
		b.status = StatusFull
	case charging:
		b.status = StatusCharging
	default:
		b.status = StatusDischarging
	}
}

func (b *battery) state() BatteryState {
	ocv := b.conf.EmptyVoltage + (b.conf.FullVoltage-b.conf.EmptyVoltage)*b.level
	return BatteryState{
		Percentage: b.level,
		Voltage:    ocv + b.current*b.conf.InternalResistance,
		Current:    b.current,
		Charge:     b.level * b.conf.Capacity,
		Capacity:   b.conf.Capacity,
		Status:     b.status,
		Present:    true,
	}
}
