module github.com/btrobot/btrobot

go 1.26.8

require (
	github.com/bluenviron/goroslib/v2 v2.1.5
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.18.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/gookit/color v1.5.4 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/xo/terminfo v0.0.0-20210125001918-ca9a967f8778 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
