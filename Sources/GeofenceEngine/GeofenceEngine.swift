// GeofenceEngine
