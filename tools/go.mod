module github.com/karpenter-cloudstack/karpenter-provider-cloudstack/tools

go 1.26.9

require github.com/yuin/goldmark v1.8.7
