// Writes documents of the shape of Flipt's export with gopkg.in/yaml.v2 and encoding/json, the encoders
// behind `flipt export`: the source of the expected texts in src/services/documents/*.test.ts and
// test/fixtures/documents/as-flipt-* (ADR 0030). Not built or run by the project or CI. To run it:
//
//	apt-get install golang-go golang-gopkg-yaml.v2-dev    # Debian: Go and yaml.v2 v2.4.0
//	mkdir -p /tmp/oracle/src && cp -r scripts/flipt-text-oracle /tmp/oracle/src/
//	GO111MODULE=off GOPATH=/tmp/oracle:/usr/share/gocode go build -o /tmp/oracle/bin flipt-text-oracle
//	/tmp/oracle/bin yaml < docs.json     # stdin: a JSON array of documents; also `json`
//	/tmp/oracle/bin scalars < strings.json  # each string as yaml.Marshal writes `value: <string>`
//
// The structs below hold the field names, order and omitempty of Flipt's document (facts, not its code).
package main

import (
	"encoding/json"
	"errors"
	"os"

	"gopkg.in/yaml.v2"
)

type Document struct {
	Version   string     `yaml:"version,omitempty" json:"version,omitempty"`
	Namespace *Namespace `yaml:"namespace,omitempty" json:"namespace,omitempty"`
	Flags     []*Flag    `yaml:"flags,omitempty" json:"flags,omitempty"`
	Segments  []*Segment `yaml:"segments,omitempty" json:"segments,omitempty"`
}
type Namespace struct {
	Key         string `yaml:"key,omitempty" json:"key,omitempty"`
	Name        string `yaml:"name,omitempty" json:"name,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}
type Flag struct {
	Key         string         `yaml:"key,omitempty" json:"key,omitempty"`
	Name        string         `yaml:"name,omitempty" json:"name,omitempty"`
	Type        string         `yaml:"type,omitempty" json:"type,omitempty"`
	Description string         `yaml:"description,omitempty" json:"description,omitempty"`
	Enabled     bool           `yaml:"enabled" json:"enabled"`
	Metadata    map[string]any `yaml:"metadata,omitempty" json:"metadata,omitempty"`
	Variants    []*Variant     `yaml:"variants,omitempty" json:"variants,omitempty"`
	Rules       []*Rule        `yaml:"rules,omitempty" json:"rules,omitempty"`
	Rollouts    []*Rollout     `yaml:"rollouts,omitempty" json:"rollouts,omitempty"`
}
type Variant struct {
	Default     bool   `yaml:"default,omitempty" json:"default,omitempty"`
	Key         string `yaml:"key,omitempty" json:"key,omitempty"`
	Name        string `yaml:"name,omitempty" json:"name,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Attachment  any    `yaml:"attachment,omitempty" json:"attachment,omitempty"`
}
type Rule struct {
	Segment       *SegmentEmbed   `yaml:"segment,omitempty" json:"segment,omitempty"`
	Rank          uint            `yaml:"rank,omitempty" json:"rank,omitempty"`
	Distributions []*Distribution `yaml:"distributions,omitempty" json:"distributions,omitempty"`
}
type Distribution struct {
	VariantKey string  `yaml:"variant,omitempty" json:"variant,omitempty"`
	Rollout    float32 `yaml:"rollout" json:"rollout"`
}
type Rollout struct {
	Description string         `yaml:"description,omitempty" json:"description,omitempty"`
	Segment     *SegmentRule   `yaml:"segment,omitempty" json:"segment,omitempty"`
	Threshold   *ThresholdRule `yaml:"threshold,omitempty" json:"threshold,omitempty"`
}
type SegmentRule struct {
	Key      string   `yaml:"key,omitempty" json:"key,omitempty"`
	Keys     []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	Operator string   `yaml:"operator,omitempty" json:"operator,omitempty"`
	Value    bool     `yaml:"value,omitempty" json:"value,omitempty"`
}
type ThresholdRule struct {
	Percentage float32 `yaml:"percentage" json:"percentage"`
	Value      bool    `yaml:"value,omitempty" json:"value,omitempty"`
}
type Segment struct {
	Key         string        `yaml:"key,omitempty" json:"key,omitempty"`
	Name        string        `yaml:"name,omitempty" json:"name,omitempty"`
	Description string        `yaml:"description,omitempty" json:"description,omitempty"`
	Constraints []*Constraint `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	MatchType   string        `yaml:"match_type,omitempty" json:"match_type,omitempty"`
}
type Constraint struct {
	Type        string `yaml:"type,omitempty" json:"type,omitempty"`
	Property    string `yaml:"property,omitempty" json:"property,omitempty"`
	Operator    string `yaml:"operator,omitempty" json:"operator,omitempty"`
	Value       string `yaml:"value,omitempty" json:"value,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}
type Segments struct {
	Keys            []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	SegmentOperator string   `yaml:"operator,omitempty" json:"operator,omitempty"`
}
type SegmentEmbed struct {
	key  string
	many *Segments
}

func (s *SegmentEmbed) UnmarshalJSON(v []byte) error {
	if err := json.Unmarshal(v, &s.key); err == nil {
		return nil
	}
	s.many = &Segments{}
	return json.Unmarshal(v, s.many)
}
func (s *SegmentEmbed) MarshalYAML() (any, error) {
	if s.many != nil {
		return s.many, nil
	}
	if s.key == "" {
		return nil, errors.New("empty")
	}
	return s.key, nil
}
func (s *SegmentEmbed) MarshalJSON() ([]byte, error) {
	if s.many != nil {
		return json.Marshal(s.many)
	}
	return json.Marshal(s.key)
}

// stdin: a JSON array of documents; argv[1]: yaml or json.
func main() {
	if os.Args[1] == "scalars" {
		var in []string
		if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
			panic(err)
		}
		out := []string{}
		for _, s := range in {
			b, err := yaml.Marshal(yaml.MapSlice{{Key: "value", Value: s}})
			if err != nil {
				panic(err)
			}
			out = append(out, string(b))
		}
		json.NewEncoder(os.Stdout).Encode(out)
		return
	}
	var docs []*Document
	if err := json.NewDecoder(os.Stdin).Decode(&docs); err != nil {
		panic(err)
	}
	if os.Args[1] == "json" {
		enc := json.NewEncoder(os.Stdout)
		for _, d := range docs {
			if err := enc.Encode(d); err != nil {
				panic(err)
			}
		}
		return
	}
	enc := yaml.NewEncoder(os.Stdout)
	defer enc.Close()
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			panic(err)
		}
	}
}
