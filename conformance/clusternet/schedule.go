package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

// errUnsupported marks what the oracle does not answer.
var errUnsupported = errors.New("unsupported by oracle")

// errNoClusters is algorithm.ErrNoClustersAvailable: the scheduler returns
// it without binding anything.
var errNoClusters = errors.New("no clusters available to schedule subscriptions")

// fitError is framework.FitError: no cluster passed the filters. Unlike
// every other error, the scheduler still binds the (empty) result
// (pkg/scheduler/scheduler.go, scheduleOne: an error containing "clusters
// are available" goes on to Bind).
type fitError struct {
	numAllClusters int
	// reasons holds, per unfit cluster, the reasons of its filter status.
	reasons map[string][]string
}

func (e *fitError) Error() string {
	count := map[string]int{}
	for _, rs := range e.reasons {
		for _, r := range rs {
			count[r]++
		}
	}
	var histogram []string
	for r, n := range count {
		histogram = append(histogram, fmt.Sprintf("%v %v", n, r))
	}
	sort.Strings(histogram)
	return fmt.Sprintf("0/%v clusters are available: %v.", e.numAllClusters, strings.Join(histogram, ", "))
}

// targetClusters is framework.TargetClusters: the clusters a Subscription
// binds to and, per feed key, the replicas of each.
type targetClusters struct {
	bindingClusters []string
	replicas        map[string][]int32
}

// The binder sorts with sort.Stable on these methods; Swap moves the
// replica lists along, those of the binding's length only.
func (t targetClusters) Len() int           { return len(t.bindingClusters) }
func (t targetClusters) Less(i, j int) bool { return t.bindingClusters[i] < t.bindingClusters[j] }
func (t targetClusters) Swap(i, j int) {
	t.bindingClusters[i], t.bindingClusters[j] = t.bindingClusters[j], t.bindingClusters[i]
	for _, r := range t.replicas {
		if len(r) == len(t.bindingClusters) {
			r[i], r[j] = r[j], r[i]
		}
	}
}

// clusterScore is framework.ClusterScore.
type clusterScore struct {
	cluster *managedCluster
	score   int64
}

// Score order: descending.
type scoreList []clusterScore

func (s scoreList) Len() int           { return len(s) }
func (s scoreList) Less(i, j int) bool { return s[i].score > s[j].score }
func (s scoreList) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

const (
	maxClusterScore  = 100 // framework.MaxClusterScore
	taintScoreWeight = 3   // TaintToleration's weight among the default Score plugins
	// minFeasibleClustersToFind and minFeasibleClustersPercentageToFind
	// are those of pkg/scheduler/algorithm/generic.go;
	// percentageOfClustersToScore is the scheduler's default (0: adaptive).
	minFeasibleClustersToFind           = 100
	minFeasibleClustersPercentageToFind = 5
	percentageOfClustersToScore         = 0
)

// schedule runs what clusternet-scheduler does for one Subscription with
// its default profile (pkg/scheduler/apis/default_plugins.go): the
// generic scheduler's Schedule (pkg/scheduler/algorithm/generic.go) with
// the TaintToleration filter and score, the static assigner, then the
// default binder's ordering. fleet is every ManagedCluster of the hub in
// namespace/name order; orders is the FeedInventory (Dividing only).
//
// The order of the clusters follows Clusternet's where it is decided:
// each subscriber's clusters in subscriber order, each cluster at its
// first place (findClustersThatFitSubscription, normalizedClusters), kept
// through the filter, then the score sort and the weight sort, both Go's
// insertion sort, so stable, up to 12 clusters. Where it is left to a map
// or to Go's unstable sorts, the oracle pins namespace/name order (decision
// P5): the clusters one subscriber lists (an informer cache's order), and
// every tie past 12 feasible clusters. The filter's parallel checks are
// taken in list order; the rotating start index is 0, as it stays on a
// hub whose Dividing Subscriptions each match fewer than 100 clusters.
// Everything else follows Clusternet step by step.
//
// bound tells whether the scheduler binds the result: true on success and
// on a fitError (an empty binding), false on any other error.
func schedule(sub *subscription, fleet []*managedCluster, orders []feedOrder) (result targetClusters, bound bool, err error) {
	if len(fleet) == 0 {
		return targetClusters{}, false, errNoClusters
	}
	dividing := sub.Spec.SchedulingStrategy == "Dividing"

	// Step 1: the clusters each subscriber's affinity selects, subscriber
	// by subscriber, each once, none being deleted; then the filter.
	// Clusternet lists one subscriber's clusters from an informer cache (a
	// map's order): the oracle lists them in namespace/name order, the
	// order of fleet.
	var selectors []labels.Selector
	for _, s := range sub.Spec.Subscribers {
		selector, err := metav1.LabelSelectorAsSelector(s.ClusterAffinity)
		if err != nil {
			return targetClusters{}, false, err
		}
		selectors = append(selectors, selector)
	}
	var candidates []*managedCluster
	for _, selector := range selectors {
		for _, c := range fleet {
			if selector.Matches(labels.Set(c.Labels)) {
				candidates = append(candidates, c)
			}
		}
	}
	seen := map[string]bool{}
	var unique []*managedCluster
	for _, c := range candidates {
		if seen[c.key()] {
			continue
		}
		if c.DeletionTimestamp != nil {
			continue
		}
		seen[c.key()] = true
		unique = append(unique, c)
	}
	fit := &fitError{numAllClusters: len(fleet), reasons: map[string][]string{}}
	feasible := []*managedCluster{}
	if len(unique) > 0 {
		limit := numFeasibleClustersToFind(len(unique), dividing)
		for _, c := range unique {
			if reason := taintFilter(sub.Spec.ClusterTolerations, c); reason != "" {
				fit.reasons[c.key()] = []string{reason}
				continue
			}
			feasible = append(feasible, c)
			if len(feasible) == limit {
				break
			}
		}
	}
	if len(feasible) == 0 {
		return targetClusters{}, true, fit
	}

	// Step 2: predicting replicas only serves Dynamic dividing.
	if dividing && sub.Spec.DividingScheduling != nil && sub.Spec.DividingScheduling.Type == "Dynamic" {
		return targetClusters{}, false, fmt.Errorf("%w: Dynamic dividing (it asks each child cluster's capacity)", errUnsupported)
	}

	// Step 3: scores, sorted by sort.Sort as prioritizeClusters sorts
	// them. Past 12 clusters its ties are arbitrary: the oracle pins them
	// in namespace/name order.
	if len(feasible) > stableSortLimit {
		sort.SliceStable(feasible, func(i, j int) bool { return feasible[i].key() < feasible[j].key() })
	}
	scores := taintScores(sub.Spec.ClusterTolerations, feasible)
	if len(scores) > stableSortLimit {
		sort.Stable(scores)
	} else {
		sort.Sort(scores)
	}

	// Step 4: subgroups.
	if sub.Spec.SchedulingBySubGroup != nil && *sub.Spec.SchedulingBySubGroup {
		scores, err = subgroupClusters(sub.Spec.Subscribers, scores)
		if err != nil {
			return targetClusters{}, false, err
		}
	}
	// selectClusters fails on an empty list: nothing is bound.
	if len(scores) == 0 {
		return targetClusters{}, false, errors.New("empty clusterScoreList")
	}

	// Step 5: selectClusters: every scored cluster, then the assigners.
	for _, s := range scores {
		result.bindingClusters = append(result.bindingClusters, s.cluster.key())
	}
	if dividing {
		// The assign plugins in order: the static assigner takes a
		// Static dividing, the dynamic one a Dynamic one; both skipping,
		// the framework answers Skip and selectClusters fails.
		if sub.Spec.DividingScheduling == nil || sub.Spec.DividingScheduling.Type != "Static" {
			return targetClusters{}, false, fmt.Errorf("assign status: Skip, ")
		}
		clusters := make([]*managedCluster, len(scores))
		for i, s := range scores {
			clusters[i] = s.cluster
		}
		staticDivideReplicas(&result, sub.Spec.Subscribers, clusters, sub.Spec.Feeds, orders)
	}

	// The default binder writes the result in namespace/name order.
	sort.Stable(result)
	return result, true, nil
}

// stableSortLimit is the longest list Go's sort.Sort and sort.Slice sort
// by insertion (pdqsort's maxInsertion), which keeps equal elements in
// their order.
const stableSortLimit = 12

// subgroupClusters is genericScheduler.subgroupClusters: per subscriber,
// the first minClusters of the scored clusters its affinity matches, in
// score order, appended subscriber after subscriber. A cluster two
// subscribers pick is listed twice, as Clusternet lists it.
func subgroupClusters(subscribers []subscriber, scores scoreList) (scoreList, error) {
	result := scoreList{}
	for _, s := range subscribers {
		selector, err := metav1.LabelSelectorAsSelector(s.ClusterAffinity)
		if err != nil {
			continue
		}
		var group scoreList
		for _, score := range scores {
			if selector.Matches(labels.Set(score.cluster.Labels)) {
				group = append(group, score)
			}
		}
		if s.SubGroupStrategy == nil {
			return nil, fmt.Errorf("subGroupStrategy filed can not be Empty")
		}
		minClusters := int(s.SubGroupStrategy.MinClusters)
		if minClusters > len(group) {
			minClusters = len(group)
		}
		result = append(result, group[:minClusters]...)
	}
	return result, nil
}

// numFeasibleClustersToFind is genericScheduler.numFeasibleClustersToFind:
// a Dividing Subscription over 100 clusters or more stops filtering once
// it has found a share of them (at least 100).
func numFeasibleClustersToFind(numAll int, dividing bool) int {
	if numAll < minFeasibleClustersToFind || percentageOfClustersToScore >= 100 || !dividing {
		return numAll
	}
	adaptive := int32(percentageOfClustersToScore)
	if adaptive <= 0 {
		adaptive = 50 - int32(numAll)/125
		if adaptive < minFeasibleClustersPercentageToFind {
			adaptive = minFeasibleClustersPercentageToFind
		}
	}
	n := int32(numAll) * adaptive / 100
	if n < minFeasibleClustersToFind {
		return minFeasibleClustersToFind
	}
	return int(n)
}

// noComparisonOperators: the tolerations' Gt and Lt operators, which
// component-helpers v0.35 matches behind a Kubernetes feature gate, are
// not matched; the v0.30.4 helpers Clusternet v0.18.0 builds with have
// none.
const noComparisonOperators = false

// taintFilter is the TaintToleration plugin's Filter: a NoSchedule or
// NoExecute taint the Subscription does not tolerate makes the cluster
// unfit, with this reason.
func taintFilter(tolerations []corev1.Toleration, c *managedCluster) string {
	taint, untolerated := v1helper.FindMatchingUntoleratedTaint(klog.Background(), c.Spec.Taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, noComparisonOperators)
	if !untolerated {
		return ""
	}
	return fmt.Sprintf("clusters(s) had taint {%s: %s}, that the subscription didn't tolerate", taint.Key, taint.Value)
}

// taintScores is the TaintToleration plugin's Score and NormalizeScore
// with its weight, in the order of the clusters: the fewer PreferNoSchedule
// taints a cluster has that the Subscription does not tolerate, the
// higher its score.
func taintScores(tolerations []corev1.Toleration, clusters []*managedCluster) scoreList {
	var preferNoSchedule []corev1.Toleration
	for _, t := range tolerations {
		if t.Effect == "" || t.Effect == corev1.TaintEffectPreferNoSchedule {
			preferNoSchedule = append(preferNoSchedule, t)
		}
	}
	scores := make(scoreList, len(clusters))
	var maxCount int64
	for i, c := range clusters {
		var n int64
		for j := range c.Spec.Taints {
			taint := &c.Spec.Taints[j]
			if taint.Effect == corev1.TaintEffectPreferNoSchedule && !v1helper.TolerationsTolerateTaint(klog.Background(), preferNoSchedule, taint, noComparisonOperators) {
				n++
			}
		}
		scores[i] = clusterScore{cluster: c, score: n}
		if n > maxCount {
			maxCount = n
		}
	}
	for i := range scores {
		s := int64(maxClusterScore)
		if maxCount > 0 {
			s = maxClusterScore - maxClusterScore*scores[i].score/maxCount
		}
		scores[i].score = s * taintScoreWeight
	}
	return scores
}

// staticDivideReplicas is defaultassigner.StaticDivideReplicas: every feed
// the inventory gives desired replicas is divided by the clusters'
// weights; a feed without desired replicas gets an empty list; with no
// weight at all nothing is divided (no replicas in the result).
func staticDivideReplicas(result *targetClusters, subscribers []subscriber, clusters []*managedCluster, feeds []feed, orders []feedOrder) {
	weights, weightSum := weightList(subscribers, clusters)
	if weightSum == 0 {
		return
	}
	if result.replicas == nil {
		result.replicas = map[string][]int32{}
	}
	for _, f := range feeds {
		var order *feedOrder
		for i := range orders {
			if orders[i].feed == f {
				order = &orders[i]
				break
			}
		}
		if order != nil && order.desiredReplicas != nil {
			result.replicas[feedKey(order.feed)] = divideByWeight(*order.desiredReplicas, weights, weightSum)
		} else {
			result.replicas[feedKey(f)] = []int32{}
		}
	}
}

// weightList is getWeightList: a cluster's weight is the sum of the
// positive weights of the subscribers whose affinity selects it.
func weightList(subscribers []subscriber, clusters []*managedCluster) ([]int64, int64) {
	weights := make([]int64, 0, len(clusters))
	var sum int64
	for _, c := range clusters {
		var w int64
		for _, s := range subscribers {
			if s.Weight <= 0 {
				continue
			}
			selector, err := metav1.LabelSelectorAsSelector(s.ClusterAffinity)
			if err != nil || !selector.Matches(labels.Set(c.Labels)) {
				continue
			}
			w += int64(s.Weight)
			sum += int64(s.Weight)
		}
		weights = append(weights, w)
	}
	return weights, sum
}

// divideByWeight is staticDivideReplicas: the floor of each cluster's
// proportional share, then one more replica each for the first clusters in
// weight order (descending, by sort.Slice, as Clusternet sorts them; past
// 12 clusters, stable) until none remain.
func divideByWeight(desired int32, weights []int64, weightSum int64) []int32 {
	res := make([]int32, len(weights))
	remain := desired
	for i, w := range weights {
		share := int32(w * int64(desired) / weightSum)
		res[i] = share
		remain -= share
	}
	if remain == 0 {
		return res
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	// Past 12 clusters sort.Slice's ties are arbitrary: pinned stable.
	if len(order) > stableSortLimit {
		sort.SliceStable(order, func(i, j int) bool { return weights[order[i]] > weights[order[j]] })
	} else {
		sort.Slice(order, func(i, j int) bool { return weights[order[i]] > weights[order[j]] })
	}
	for i := 0; i < int(remain); i++ {
		res[order[i]]++
	}
	return res
}
