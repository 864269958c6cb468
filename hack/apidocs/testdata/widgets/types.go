/*
Copyright 2026 The listkeeper Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package v1 is a small API package for the tests of apidocs: every kind of
// doc comment and marker the generator reads, some of them awkward.
//
// +groupName=widgets.example.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Color is the color of a widget.
//
// +kubebuilder:validation:Enum=Red;Green
type Color string

const (
	// ColorRed is the color of <stop> signs.
	ColorRed Color = "Red"
	// ColorGreen is the default.
	ColorGreen Color = "Green"
)

// Common holds fields several specs share.
// +kubebuilder:validation:XValidation:rule="has(self.owner)",message="owner must be set"
type Common struct {
	// owner is who owns the widget.
	// +optional
	Owner string `json:"owner,omitempty"`
}

// WidgetSpec is what a widget should be.
type WidgetSpec struct {
	Common `json:",inline"`

	// size is how big the widget is, in *units* of
	// some_thing.
	//
	// A second paragraph | with a pipe.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	Size int32 `json:"size,omitempty"`

	// name names the widget.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.startsWith(\"w\") || self == 'x,y'",message="name must start with \"w\", or be x,y"
	Name string `json:"name"`

	// color is the widget's color.
	// +optional
	// +kubebuilder:default=Green
	Color Color `json:"color,omitempty"`

	// tags label the widget.
	// +optional
	// +listType=set
	Tags []string `json:"tags,omitempty"`

	// period is how often the widget blinks.
	// +optional
	// +kubebuilder:default="1m"
	Period *metav1.Duration `json:"period,omitempty"`

	// empty is empty by default.
	// +optional
	// +kubebuilder:default=""
	Empty string `json:"empty,omitempty"`

	// Unexported and dropped fields are no part of the API.
	secret string
	Skip   string `json:"-"`
}

// Widget is a thing that blinks.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName={wd,wdg},categories=things
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="Color",type=string,JSONPath=`.spec.color`,priority=1
// +kubebuilder:selectablefield:JSONPath=`.spec.name`
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the widget's spec.
	// +required
	Spec WidgetSpec `json:"spec"`
}

// WidgetList is a list of widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Unused is declared but not reached from a kind.
type Unused struct {
	// field is never shown.
	Field string `json:"field"`
}

// Names the operator uses.
const (
	// AnnotationBlink asks a widget to blink.
	AnnotationBlink = "widgets.example.dev/blink"
)

// FinalizerName holds a widget.
const FinalizerName = "widgets.example.dev/hold"

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(schemeGroupVersion, &Widget{}, &WidgetList{})
	return nil
}
